#pragma once
// Tunables of one node's replicated queue, each field holding its default
// with the reason for it (dice-node's --help takes them from here).
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

/// Bounds of the dice-node --slots and --prefetch options.
constexpr std::size_t max_slots = 1024;

struct queue_config {
  /// How long a DEQUEUE claim that the common matching did not give this
  /// node (a staggered claim, see claim_stagger_ms) waits for competing
  /// claims before executing.
  millis claim_window_ms = 100;
  /// The same for a claim of a task the common matching gave this node.
  /// Nodes whose views differ (one has not heard yet of another's claim or
  /// end) now and then match the same task; this window lets the worse
  /// claim lose before it starts, so it must cover the network's delay: in
  /// dice-sim (1-10 ms delays; bench/README.md) 64 nodes started 3.7% of
  /// their tasks twice with 5 ms and 0.13% with 10 ms, at the same
  /// makespan. On loopback a rival's claim arrives well within it. A task
  /// submitted to a node with a free slot does not wait it (submit_claim_ms),
  /// and prefetch claims while the slot still runs, so the window rarely
  /// delays a task of an idle node. This is where each node's window
  /// starts: it lengthens it when a better rival claim reaches it only
  /// after its execution began (the network is slower than the window), up
  /// to claim_window_ms, and shortens it a millisecond per 8 executions no
  /// rival beat (once 512 came since the last late rival), down to 1 ms
  /// (ranking_machine): a busy node's claims of
  /// short tasks wait it, and no-op throughput is about prefetch / window.
  millis matched_claim_window_ms = 10;
  /// A task a node submits and the matching gives back to it (a node with
  /// a free slot takes its own new tasks first) starts at once, with no
  /// window, if offered within this long of its ENQUEUE. Its claim is dated
  /// at the ENQUEUE: a rival must hear the ENQUEUE before it claims, so its
  /// claim is dated no earlier, and a tie goes to the enqueuer. It is most
  /// of an idle cluster's latency (bench/README.md, "The claim path").
  /// 3 ms: the offer comes at ready_queue's tick after the submit, 1 ms
  /// later, which a millisecond clock and a loaded machine make 2 or 3; a
  /// longer bound lets the claim leave later, after a rival's window may
  /// have ended. -1: never.
  millis submit_claim_ms = 3;
  /// 0 disables the claim matching and staggering: every idle node claims
  /// the head of its own walk at once.
  /// A free slot that the common matching left without a task (see
  /// ready_queue/claim_matching.hpp) claims only after this plus its
  /// rendezvous rank among the idle nodes times this (estimated from its own
  /// hash of the task), so the matched node claims first and usually only one
  /// node claims. Keep it above the network delay. 0: no matching, every
  /// free slot claims the head of its own walk at once.
  millis claim_stagger_ms = 50;
  /// Besides the winner, about this many nodes tell a losing claimer that a
  /// better claim holds the task (either message may be lost).
  std::size_t claim_helpers = 2;
  /// Besides the node whose claim holds it, this many (the first by
  /// rendezvous rank) tell a node that claims a task whose claim or end it
  /// missed, with the task (TAKE_MY_TASK or ALREADY_FINISHED_TASK).
  std::size_t behind_tellers = 3;
  /// Replicas that acknowledge a node's ENQUEUEs at once (by unicast), so
  /// its submit is answered without waiting for a heartbeat: two, in case
  /// one Ack is lost; heartbeats still carry what every replica holds.
  std::size_t ack_replicas = 2;
  /// RUNNING heartbeats of an execution, one per task per interval; as the
  /// membership heartbeat's, so each rides in its datagram.
  millis running_interval_ms = 400;
  /// No RUNNING heartbeat for this long: the task goes back to READY with the
  /// next attempt (several intervals, so a lossy link alone rarely triggers it).
  millis running_timeout_ms = 1600;
  /// How long the report that ends an execution (DONE or FAILED) may wait
  /// to share a datagram with the next broadcast, usually the node's claim
  /// for the seat the end freed: alone they were a fifth of a round's
  /// datagrams at 32 nodes. It is part of every task's latency (submit to
  /// result seen by the submitter, 4 nodes: 6.4 ms at 0, 7.6 ms at 1, 9.3 ms
  /// at 3; bench/README.md). 0: it leaves at once.
  millis finished_hold_ms = 1;
  /// An execution that a slot took tells the others it began (its start
  /// mark: "running", not "claimed" ahead of a slot) this long after, unless
  /// it ended first: a task shorter than this sends no extra message (its
  /// DONE carries its start time), and a display lags at most this.
  millis start_mark_delay_ms = 100;
  /// Random extra wait before announcing a re-queue, so usually one node does.
  millis requeue_jitter_ms = 300;
  /// A silent executor is first asked, alone, about the task
  /// (DO_YOU_KNOW_THIS_TASK, answered at once): the silence may be this
  /// replica's, a lost DONE. The task is re-queued only if no end comes
  /// within this long of each of requeue_questions questions. A re-queue
  /// is broadcast and makes the replicas that missed the end run the task
  /// again: at 20% loss they were most re-queues and duplicate executions
  /// once unknown-task questions stopped being broadcast
  /// (bench/README.md). 0: re-queue at once.
  millis requeue_confirm_ms = 200;
  /// Questions to a silent executor before its task is re-queued. At 20%
  /// loss a question or its answer is lost one time in three; twice, one
  /// in eight. An executor found dead is re-queued at once all the same.
  std::uint32_t requeue_questions = 2;
  /// Tasks one node executes at once (dice-node defaults to the core count).
  std::size_t slots = 1;
  /// Claims a node holds beyond its slots: the next task is claimed while
  /// the current one runs (as Celery's prefetch) and starts the moment a
  /// slot frees; it waits in the executor's queue, with RUNNING heartbeats
  /// like an execution. 0: a slot claims only once it is free.
  std::size_t prefetch = 1;
  /// --prefetch auto: the claims beyond the slots follow how long this
  /// node's executions take, from `prefetch` up to 4
  /// (ranking/adaptive_prefetch.hpp). false: always `prefetch`.
  bool prefetch_auto = false;
  /// Executions of a task that may fail before it ends FAILED.
  std::uint32_t max_attempts = 3;
  /// Wait before a failed task's second attempt (a task's own backoff
  /// overrides it); each later attempt waits twice the one before, half of it
  /// drawn at random so that retries of many tasks do not fall together.
  /// 0: the next attempt is ready at once, as before per-task policies.
  millis retry_backoff_ms = 0;
  /// The longest wait between two attempts (Celery's retry_backoff_max).
  millis retry_backoff_max_ms = 600'000;
  /// How long a task that ended (done, failed, expired, canceled, removed)
  /// stays in every replica, its journal and its snapshots before it is
  /// forgotten (a task's own keep_for_ms overrides it). A day, as Celery's
  /// result_expires: long enough to read a result, short enough that a
  /// replica holds the tasks of a day, not of every day.
  millis keep_finished_ms = 86'400'000;
  /// Replicas forget at multiples of this (wall clock), so that they forget
  /// the same tasks at the same moment and their digests keep agreeing.
  millis forget_grid_ms = 1000;
  /// A forgotten task's id is remembered this long besides its number, to
  /// refuse late messages that name it by id alone (claims, heartbeats):
  /// longer than any datagram stays in flight.
  millis forgotten_ids_ms = 30'000;
  /// Schedules: each next node in rendezvous rank enqueues a tick it has
  /// not heard of this much later; a tick older than schedule_late_ms when
  /// it could be enqueued was missed (its schedule's catch_up decides).
  millis schedule_stagger_ms = 1000;
  millis schedule_late_ms = 10'000;
  /// A node restarted on a journal that held unended tasks claims none of
  /// them for this long: time to hear a peer (heartbeats every 400 ms), find
  /// itself behind and catch up, so that it learns which of them ended, or
  /// were forgotten, while it was down before it runs any again.
  millis restore_hold_ms = 2000;
  /// Queue operations kept for retransmission; beyond it, state transfer.
  std::size_t op_log_limit = 4096;
  /// Operations that answer one SyncRequest (in replies of wire_budget
  /// bytes): under heavy loss a node misses a fifth of all ops, and it must
  /// catch up faster than executions time out.
  std::size_t sync_batch_ops = 128;
  /// Bytes of replies (several datagrams of wire_budget each) that answer one
  /// SyncRequest: what one 56 KB reply carried before replies were cut to a
  /// frame, so a snapshot of 10,000 tasks still takes a few dozen round trips.
  std::size_t sync_reply_bytes = defaults::max_datagram_bytes - 4096;
  /// Body bytes one reply or announcement (sync reply, snapshot chunk,
  /// Recovery) may fill so its datagram stays within --bundle-bytes:
  /// bundle_bytes less an envelope (128 bytes, broadcast_bridge/
  /// wire_budget.cpp) with ids and an address of 64 bytes each. dice-node
  /// derives it from --bundle-bytes and its own ids.
  std::size_t wire_budget = defaults::bundle_bytes - 128 - 3 * 64;
  /// Bytes the version vector may take in a heartbeat before superseded
  /// origins leave without waiting prune_superseded_after_ms.
  /// Bytes the version vector may take in a heartbeat; past it, superseded
  /// origins that every live peer has settled leave at once instead of after
  /// prune_superseded_after_ms (restarts faster than that would otherwise
  /// grow every heartbeat). One frame (bundle_bytes, 1400) less what else a
  /// heartbeat datagram carries: the sealed envelope with a 16-byte address
  /// (~110), gossip_peers_per_heartbeat peers of ~40 bytes (~320) and the
  /// node info and digest (~50). 32 current origins of a dice-node (id of 3-8
  /// characters, a 13-digit incarnation) take 750-900 of it.
  std::size_t heartbeat_versions_bytes = 920;
  /// Least time between two SyncRequests of a node that is behind.
  /// A lost request or reply costs this much catch-up time: keep it a few
  /// round trips, not more.
  millis sync_interval_ms = 100;
  /// Least time between two op-log compactions: each looks at every peer's
  /// version vector, too costly for every tick of a large cluster.
  millis compact_interval_ms = 250;
  /// How often the coordinator announces the stable point (the ops every live
  /// member has seen) up to which every replica compacts its op log.
  millis stable_point_interval_ms = 1000;
  /// An origin (a node incarnation) that a newer incarnation of its node has
  /// superseded issues no more ops: after this long, once no live peer
  /// reports fewer of its ops, it leaves the version vector, so heartbeats do
  /// not grow with every restart (a heartbeat carried every origin ever seen:
  /// after ~50 restarts it outgrew a datagram). Long enough for op sync to
  /// have brought its ops everywhere; a replica still missing some then gets
  /// them by snapshot (equal vectors, different digests).
  millis prune_superseded_after_ms = 30'000;
  /// Unfinished tasks of a dead enqueuer adopted by one recovery (announced in
  /// as many Recovery messages of wire_budget bytes as they need).
  std::size_t recovery_adopt_limit = 1000;
  /// Tasks submitted to one node and not yet held by another replica, at
  /// most. A submit that would pass it is refused whole (HTTP 429), so a
  /// node whose peers fall behind tells its clients to wait instead of
  /// piling up ENQUEUEs nobody has acknowledged. Two submits of the largest
  /// size (10,000) fit.
  std::size_t submit_window = 20'000;
  /// Tasks of one submit handed to known_tasks as one message: their
  /// ENQUEUEs leave together, 128 filling about eight datagrams, and the
  /// peers start acknowledging the first chunks while later ones are built.
  std::size_t submit_chunk = 128;
  /// Submitted tasks handed to known_tasks and not yet acknowledged by
  /// another replica, at most; later chunks wait in the facade and go as
  /// acknowledgements come back. Ten submits of 10,000 sent at once
  /// overflowed the peers' UDP receive buffers (about 150 full datagrams
  /// each by default): the lost ENQUEUEs were caught up 128 ops per sync
  /// interval and 100,000 tasks took minutes. 1,024 tasks are about 64
  /// datagrams.
  std::size_t submit_in_flight = 1024;
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
  /// How often the ready queue looks again at tasks waiting for their locks.
  millis lock_recheck_ms = 50;
  /// What the ranking knows about this node.
  std::uint32_t battery = 100;
  std::uint32_t device_class = 0;
  /// A fresh battery level (0..100; dice-node: /sys/class/power_supply),
  /// asked every battery_refresh_ms by the ranking. Unset: `battery` stays.
  std::function<std::optional<std::uint32_t>()> battery_source;
  /// How often --battery auto reads /sys/class/power_supply again: a laptop
  /// under load drains about a percent a minute, and a read is two small
  /// files, so a minute keeps the ranking current at no cost.
  millis battery_refresh_ms = 60'000;

  /// How long a RUNNING heartbeat may wait to share the datagram of another
  /// broadcast (usually the membership heartbeat). Two heartbeats then
  /// arrive at most an interval plus this apart, still well inside the
  /// timeout.
  millis running_hold_ms() const;

  /// Empty when usable, otherwise a one-line reason naming the bad option.
  std::string problem() const;
};

/// What every subsystem's machine is built from: each has one factory,
/// make_<x>_machine(const machine_config&), beside it, used by its actor
/// and by its unit tests alike.
struct machine_config {
  std::string node_id;
  std::uint64_t incarnation = 0;
  std::uint64_t seed = 0; // the node's: each machine derives its own
  queue_config queue;
  /// Started with peers to join (--peer): communication does not take
  /// the silence before it meets one for being alone.
  bool joins = false;
};

} // namespace dice
