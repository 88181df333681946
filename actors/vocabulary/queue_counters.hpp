#pragma once
// What one node's queue did, summed over its subsystems (each counts its
// own part).
#include <algorithm>
#include <cstdint>

namespace dice {

struct queue_counters {
  std::uint64_t ops_sent = 0;
  std::uint64_t ops_received = 0;
  std::uint64_t duplicate_ops = 0;
  std::uint64_t claims = 0;
  std::uint64_t claims_lost = 0;
  std::uint64_t executions_started = 0;
  std::uint64_t executions_canceled = 0;
  std::uint64_t reclaims = 0;
  std::uint64_t defenses = 0; // RUNNING sent at once to a losing claimer
  std::uint64_t requeues = 0;
  // Silent executors asked about a task before it would be re-queued.
  std::uint64_t executors_asked = 0;
  std::uint64_t retries = 0; // of those, failed attempts given another
  std::uint64_t expired = 0; // tasks this node saw expire unstarted
  // Tasks that left the replica after their retention, and messages
  // refused because they named a forgotten task.
  std::uint64_t tasks_forgotten = 0;
  std::uint64_t forgotten_refused = 0;
  std::uint64_t running_heartbeats = 0;
  std::uint64_t start_marks = 0; // executions this node told had begun
  // Gauges of ranking: drained by its operator (0 or 1), and the claims
  // and executions it holds (pending claims, and executions handed on).
  std::uint64_t draining = 0;
  std::uint64_t seats_held = 0;
  std::uint64_t sync_requests = 0;
  std::uint64_t sync_replies = 0;
  std::uint64_t snapshots_sent = 0;
  std::uint64_t snapshots_applied = 0;
  std::uint64_t rejected = 0; // malformed or unusable messages
  std::uint64_t recoveries = 0;       // dead members this node recovered
  std::uint64_t recoveries_heard = 0; // Recovery announcements received
  std::uint64_t adopted = 0;          // tasks whose enqueuer of record we became
  std::uint64_t parent_cancels = 0;   // children this node canceled: a parent ended badly
  std::uint64_t schedule_ticks = 0;   // schedule ticks this node enqueued
  std::uint64_t stable_points_sent = 0;
  std::uint64_t stable_points_applied = 0;
  std::uint64_t acks_sent = 0; // Acks of received ENQUEUEs
  /// Claims of tasks the common matching gave this node (short window).
  std::uint64_t matched_claims = 0;
  /// The matched claim window this node has learnt, ms (a gauge).
  std::uint64_t matched_window_ms = 0;
  /// The claims this node holds beyond its slots now (a gauge).
  std::uint64_t prefetch = 0;
  /// Superseded origins (old incarnations) pruned from the version vector.
  std::uint64_t origins_pruned = 0;
  // Of those, pruned before prune_superseded_after_ms: the version vector
  // outgrew the heartbeat budget.
  std::uint64_t origins_pruned_early = 0;
  // The replica's journal (known_tasks): records merged at start, torn or
  // corrupt tails cut then, appends, fsyncs, rewrites, refused writes.
  std::uint64_t journal_records_loaded = 0;
  std::uint64_t journal_bad_tails = 0;
  std::uint64_t journal_records_written = 0;
  std::uint64_t journal_bytes_written = 0;
  std::uint64_t journal_syncs = 0;
  std::uint64_t journal_compactions = 0;
  std::uint64_t journal_write_errors = 0;

  queue_counters& operator+=(const queue_counters& o) {
    ops_sent += o.ops_sent;
    ops_received += o.ops_received;
    duplicate_ops += o.duplicate_ops;
    claims += o.claims;
    claims_lost += o.claims_lost;
    executions_started += o.executions_started;
    executions_canceled += o.executions_canceled;
    reclaims += o.reclaims;
    defenses += o.defenses;
    requeues += o.requeues;
    executors_asked += o.executors_asked;
    retries += o.retries;
    expired += o.expired;
    tasks_forgotten += o.tasks_forgotten;
    forgotten_refused += o.forgotten_refused;
    running_heartbeats += o.running_heartbeats;
    start_marks += o.start_marks;
    draining += o.draining;
    seats_held += o.seats_held;
    sync_requests += o.sync_requests;
    sync_replies += o.sync_replies;
    snapshots_sent += o.snapshots_sent;
    snapshots_applied += o.snapshots_applied;
    rejected += o.rejected;
    recoveries += o.recoveries;
    recoveries_heard += o.recoveries_heard;
    adopted += o.adopted;
    parent_cancels += o.parent_cancels;
    schedule_ticks += o.schedule_ticks;
    stable_points_sent += o.stable_points_sent;
    stable_points_applied += o.stable_points_applied;
    acks_sent += o.acks_sent;
    matched_claims += o.matched_claims;
    matched_window_ms = std::max(matched_window_ms, o.matched_window_ms);
    prefetch = std::max(prefetch, o.prefetch);
    origins_pruned += o.origins_pruned;
    origins_pruned_early += o.origins_pruned_early;
    journal_records_loaded += o.journal_records_loaded;
    journal_bad_tails += o.journal_bad_tails;
    journal_records_written += o.journal_records_written;
    journal_bytes_written += o.journal_bytes_written;
    journal_syncs += o.journal_syncs;
    journal_compactions += o.journal_compactions;
    journal_write_errors += o.journal_write_errors;
    return *this;
  }
};

} // namespace dice
