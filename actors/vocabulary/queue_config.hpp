#pragma once
// Tunables of one node's replicated queue; defaults in common/defaults.hpp.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "dice.pb.h"

#include "common/defaults.hpp"
#include "common/time.hpp"
#include "vocabulary/runner_capabilities.hpp"
#include "vocabulary/resolver_config.hpp"

namespace dice {

struct queue_config {
  millis claim_window_ms = defaults::claim_window_ms;
  millis matched_claim_window_ms = defaults::matched_claim_window_ms;
  /// 0 disables the claim matching and staggering: every idle node claims
  /// the head of its own walk at once.
  millis claim_stagger_ms = defaults::claim_stagger_ms;
  std::size_t claim_helpers = defaults::claim_helpers;
  std::size_t ack_replicas = defaults::ack_replicas;
  millis running_interval_ms = defaults::running_interval_ms;
  millis running_timeout_ms = defaults::running_timeout_ms;
  millis finished_hold_ms = defaults::finished_hold_ms;
  millis start_mark_delay_ms = defaults::start_mark_delay_ms;
  millis requeue_jitter_ms = defaults::requeue_jitter_ms;
  std::size_t slots = defaults::slots;
  std::size_t prefetch = defaults::prefetch;
  std::uint32_t max_attempts = defaults::max_attempts;
  millis retry_backoff_ms = defaults::retry_backoff_ms;
  millis retry_backoff_max_ms = defaults::retry_backoff_max_ms;
  millis keep_finished_ms = defaults::keep_finished_ms;
  millis forget_grid_ms = defaults::forget_grid_ms;
  millis forgotten_ids_ms = defaults::forgotten_ids_ms;
  millis restore_hold_ms = defaults::restore_hold_ms;
  std::size_t op_log_limit = defaults::op_log_limit;
  std::size_t sync_batch_ops = defaults::sync_batch_ops;
  std::size_t sync_reply_bytes = defaults::sync_reply_bytes;
  /// Body bytes one reply or announcement may fill so its datagram stays
  /// within --bundle-bytes (the node derives it from its envelope).
  std::size_t wire_budget = defaults::wire_budget;
  /// Bytes the version vector may take in a heartbeat before superseded
  /// origins leave without waiting prune_superseded_after_ms.
  std::size_t heartbeat_versions_bytes = defaults::heartbeat_versions_bytes;
  millis sync_interval_ms = defaults::sync_interval_ms;
  millis compact_interval_ms = defaults::compact_interval_ms;
  millis stable_point_interval_ms = defaults::stable_point_interval_ms;
  millis prune_superseded_after_ms = defaults::prune_superseded_after_ms;
  std::size_t recovery_adopt_limit = defaults::recovery_adopt_limit;
  std::size_t submit_window = defaults::submit_window;
  std::size_t submit_chunk = defaults::submit_chunk;
  std::size_t submit_in_flight = defaults::submit_in_flight;
  resolver_config resolver;
  /// What this node can execute (its kinds; a shell task's program must be
  /// allowed), advertised in heartbeats. A node never claims a task it
  /// cannot run; such a task waits for a node that can. Unset: every task.
  std::optional<runner_capabilities> runner;
  bool can_run(const wire::TaskSpec& t) const { return !runner || runner->runs(t); }
  /// Data objects of a task this node holds beyond those its spec lists
  /// (dice test: the project blobs already in its store), added to its
  /// claim's first ranking criterion. Unset: none.
  std::function<std::uint32_t(const wire::TaskSpec&)> objects_held;
  /// Whether this node may claim a ready attempt of a task naming
  /// cluster-wide locks now: true once the locks are this node's for that
  /// attempt; false (and the locks are asked for) while they are not, and
  /// the task waits, READY. Asked at every offer; unset: always.
  std::function<bool(const wire::TaskSpec&, std::uint32_t attempt)> take_locks;
  /// How often tasks waiting for their locks are looked at again.
  millis lock_recheck_ms = defaults::task_lock_recheck_ms;
  /// What the ranking knows about this node.
  std::uint32_t battery = 100;
  std::uint32_t device_class = 0;
  /// A fresh battery level (0..100; dice-node: /sys/class/power_supply),
  /// asked every battery_refresh_ms by the ranking. Unset: `battery` stays.
  std::function<std::optional<std::uint32_t>()> battery_source;
  millis battery_refresh_ms = defaults::battery_refresh_ms;

  /// How long a RUNNING heartbeat may wait to share the datagram of another
  /// broadcast (usually the membership heartbeat). Two heartbeats then
  /// arrive at most an interval plus this apart, still well inside the
  /// timeout.
  millis running_hold_ms() const;

  /// Empty when usable, otherwise a one-line reason naming the bad option.
  std::string problem() const;
};

/// What every subsystem's machine is built from: each has one factory,
/// make_<x>_machine(const machine_config&), beside it, used by queue_node
/// and by the actors alike.
struct machine_config {
  std::string node_id;
  std::uint64_t incarnation = 0;
  std::uint64_t seed = 0; // the node's: each machine derives its own
  queue_config queue;
};

} // namespace dice
