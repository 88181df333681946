#pragma once
// One node's replicated task queue (seed 000) as a pure state machine: it
// composes the paper's subsystems (known tasks, ready queue, running tasks,
// finished tasks, ranking, unknown-task resolution, communication) and adds
// anti-entropy. Inputs are received messages, timer ticks, peers' version
// vectors and liveness, user operations and executor reports; outputs are
// collected in an outbox. Time and randomness are injected.
//
// The protocol in short:
//  - submit: ENQUEUE broadcast; acknowledged once a peer's version vector
//    covers it (or no other node is alive).
//  - an idle slot walks this node's ready-queue order, broadcasts DEQUEUE
//    with its Claim for (task, attempt) and waits a claim window; it then
//    executes only if the merged state still names its claim. The merge
//    order picks the same winner on every replica, however late a claim is.
//  - contention: among idle nodes each waits its turn for a task (its
//    rendezvous rank times claim_stagger_ms), so the first claim is usually
//    heard before anyone else claims; a losing claimer is told at once by
//    the winner and by about claim_helpers other nodes.
//  - while executing: RUNNING heartbeats; at the end INFO DONE, or on
//    failure READY(attempt+1) (FAILED after max_attempts).
//  - silence of an executor (or its death) re-queues the task as
//    READY(attempt+1): every node computes that same state, so concurrent
//    announcements merge into one. The executor, if alive after all, claims
//    the new attempt for the execution it already runs.
//  - the coordinator role: once an election runs (set_coordinator), only
//    the coordinator recovers a dead member at once: it re-queues the
//    member's executions, adopts the unfinished tasks it had enqueued, and
//    broadcasts a Recovery announcement. Every other node keeps the RUNNING
//    timeout as the fallback, so nothing is lost if the coordinator dies
//    too; a node elected later recovers the dead members nobody announced.
//    The coordinator also announces the stable point (ops every live member
//    has seen) and every replica compacts its op log up to it. Without an
//    election every node does both itself, as before.
//  - anti-entropy: a node whose version vector is behind a peer's sends a
//    SyncRequest; the reply carries the missing ops, or a snapshot once they
//    left the bounded op log.
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "common/time.hpp"
#include "dice.pb.h"
#include "finished_tasks/finished_tasks.hpp"
#include "known_tasks/known_tasks.hpp"
#include "known_tasks/op_log.hpp"
#include "known_tasks/version_vector.hpp"
#include "queue_node/peer_versions.hpp"
#include "queue_node/queue_config.hpp"
#include "queue_node/queue_outbox.hpp"
#include "ready_queue/ready_queue.hpp"
#include "running_tasks/running_tasks.hpp"
#include "unknown_resolver/unknown_resolver.hpp"

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
  std::uint64_t running_heartbeats = 0;
  std::uint64_t sync_requests = 0;
  std::uint64_t sync_replies = 0;
  std::uint64_t snapshots_sent = 0;
  std::uint64_t snapshots_applied = 0;
  std::uint64_t rejected = 0; // malformed or unusable messages
  std::uint64_t recoveries = 0;       // dead members this node recovered
  std::uint64_t recoveries_heard = 0; // Recovery announcements received
  std::uint64_t adopted = 0;          // tasks whose enqueuer of record we became
  std::uint64_t stable_points_sent = 0;
  std::uint64_t stable_points_applied = 0;
};

class queue_node {
public:
  /// `incarnation` grows on every restart: this node's ops are numbered per
  /// (id, incarnation), since a restarted node remembers nothing.
  /// Throws std::invalid_argument for an empty id or a config with a problem.
  queue_node(std::string id, std::uint64_t incarnation, std::uint64_t seed,
             queue_config cfg = {});

  // -- inputs -------------------------------------------------------------

  /// A queue message from a peer (header's sender_id filled). Other bodies
  /// are ignored.
  void on_message(const wire::Message& m, millis now);
  void tick(millis now);
  /// A peer's membership heartbeat: its version vector and replica digest.
  void on_peer_heartbeat(const std::string& peer, std::uint64_t incarnation,
                         const wire::Heartbeat& hb, millis now);
  /// The peer (or its previous incarnation) is gone: it no longer holds back
  /// op-log compaction, and its responsibilities are recovered, at once by
  /// the coordinator (or by every node when no election runs).
  void on_peer_dead(const std::string& peer, millis now = 0);
  /// An election runs and `coordinator` won it ("" while there is none).
  /// Until the first call every node acts as coordinator (no election).
  void set_coordinator(const std::string& coordinator, millis now);

  // -- user operations (the paper's API) -------------------------------------

  /// Enqueues a task; fills enqueuer and enqueue time when unset. nullopt if
  /// the id is empty or already known.
  std::optional<wire::OpId> submit(wire::TaskSpec spec, millis now);
  /// removeByID: the task ends REMOVED everywhere, whatever it was doing.
  /// The REMOVE's op id (see replicated()); nullopt if already removed.
  std::optional<wire::OpId> remove(const std::string& task_id, millis now);
  /// Cancels a task that has not ended: CANCELED everywhere.
  bool cancel(const std::string& task_id, millis now);
  /// The executor's report for an execution started through the outbox;
  /// `started` is when it began running (0: when it was ordered).
  void execution_finished(const std::string& task_id, std::uint32_t attempt,
                          bool ok, const std::string& result, millis now,
                          millis started = 0);

  // -- outputs ------------------------------------------------------------

  queue_outbox take_outbox();
  const queue_outbox& outbox() const { return out_; }

  /// Puts this node's version vector and replica digest into its
  /// membership heartbeat.
  void fill_heartbeat(wire::Heartbeat* hb) const;
  const version_vector& seen() const { return seen_; }

  /// True once another replica holds the submitted task's ENQUEUE.
  bool acknowledged(const std::string& task_id) const;
  /// True if some peer's version vector covers `op`.
  bool replicated(const wire::OpId& op) const;

  // -- views --------------------------------------------------------------

  const std::string& id() const { return id_; }
  const std::string& origin() const { return origin_; }
  const queue_config& config() const { return cfg_; }
  const known_tasks& replica() const { return tasks_; }
  const ready_queue& ready() const { return ready_; }
  const running_tasks& running() const { return running_; }
  const finished_tasks& finished() const { return finished_; }
  const unknown_resolver& resolver() const { return resolver_; }
  const op_log& log() const { return log_; }
  const queue_counters& counters() const { return counters_; }
  /// True if this node recovers dead members and announces the stable point.
  bool acts_as_coordinator() const {
    return !coordinated_ || coordinator_ == id_;
  }
  /// The node answering for a task: the coordinator that adopted it after
  /// its enqueuer died, or the enqueuer ("" if the task is unknown).
  std::string owner_of(const std::string& task_id) const;
  /// Dead members not yet recovered by an announcement this node heard.
  const std::set<std::string>& unrecovered() const { return unrecovered_; }
  /// Claims waiting for their window to end.
  std::size_t pending_claims() const { return pending_.size(); }

private:
  struct pending_claim {
    std::uint32_t attempt = 0;
    wire::Claim claim;
    millis window_end = 0;
    millis ready_ms = 0; // when the claimed attempt became ready
  };

  // Numbers, logs, broadcasts and applies one of this node's operations.
  void originate(wire::Message op, millis now);
  // Applies a state-carrying message (op or heartbeat) to the replica;
  // `from_peer` when a peer sent it (it may show the peer is behind).
  void apply(const wire::Message& m, millis now, bool from_peer);
  // Logs and applies a peer's operation unless seen already.
  // `relayed`: resent by a peer from its op log (a sync reply), so it says
  // nothing about what the peer itself believes now.
  void receive_op(const wire::Message& m, millis now, bool relayed = false);
  // Brings every subsystem in line with the task's merged state.
  void settle(const std::string& task_id, millis now);
  void learned_spec(const std::string& task_id);

  void defend(const wire::Dequeue& d, millis now);
  // True if this node is one of the few that tell a losing claimer about
  // the better claim.
  bool helps(const std::string& task_id, const std::string& claimer) const;
  void claim(const std::string& task_id, millis now);
  void end_claim_windows(millis now);
  void fill_slots(millis now);
  // The ready task this node may claim now (its stagger turn has come).
  std::optional<std::string> next_claim(millis now) const;
  // Live nodes, this one included, not known to be executing.
  std::size_t idle_nodes() const;
  void requeue(const std::string& task_id, std::uint32_t next_attempt,
               millis now);
  void reclaim(const std::string& task_id, std::uint32_t attempt, millis now);
  void cancel_execution(const std::string& task_id);

  void answer(const std::string& task_id);
  void ask_unknown(millis now);
  void on_sync_request(const wire::Message& m);
  void on_sync_reply(const wire::Message& m, millis now);
  void request_sync(const std::string& peer, millis now, bool snapshot);
  // One chunk of this replica: the tasks after `after`, within a datagram.
  void fill_snapshot(wire::SyncReply* r, const std::string& after) const;
  // Takes in a snapshot chunk's progress; true if more chunks are to come.
  bool snapshot_chunk(const std::string& peer, const wire::SyncReply& r);
  void check_acks();
  // The coordinator's part when `peer` died: re-queue, adopt, announce.
  void recover(const std::string& peer, millis now);
  void on_recovery(const wire::Message& m);
  void announce_stable_point(millis now);
  void on_stable_point(const wire::Message& m);
  void compact_to(const std::map<std::string, std::uint64_t>& floors);

  bool names(const wire::TaskState& s, std::uint32_t attempt,
             const wire::Claim& claim) const;
  millis jitter(millis range);

  std::string id_;
  std::string origin_;
  queue_config cfg_;
  std::mt19937_64 rng_;
  wire::NodeInfo info_;

  known_tasks tasks_;
  ready_queue ready_;
  running_tasks running_;
  finished_tasks finished_;
  unknown_resolver resolver_;

  version_vector seen_;
  op_log log_;
  std::uint64_t next_seq_ = 1;
  peer_versions peers_;
  // Peers whose previous report had our ops but another replica digest.
  std::set<std::string> differed_;
  millis next_sync_ = 0;
  // A snapshot arriving in chunks: from whom, the version vector of its
  // first chunk, and the last task id received.
  struct snapshot_progress {
    std::string peer;
    version_vector base;
    std::string cursor;
  };
  std::optional<snapshot_progress> snapshot_;
  millis next_compact_ = 0;

  std::map<std::string, pending_claim> pending_;
  // When each ready task became ready here: its stagger counts from then.
  std::map<std::string, millis> ready_since_;
  // When a slot last became free (-1: all busy): nodes freed together by
  // equally long tasks must not all claim at once either.
  millis free_since_ = 0;
  std::map<std::string, wire::OpId> awaiting_ack_;
  std::set<std::string> acked_;
  std::set<std::string> maybe_unknown_;
  // The coordinator role (see set_coordinator).
  bool coordinated_ = false;
  std::string coordinator_;
  std::set<std::string> unrecovered_;
  // Dead members already recovered (by us or an announcement we heard),
  // until they are heard from again: recovered once per death.
  std::set<std::string> recovered_;
  std::map<std::string, std::string> adopted_by_; // task id -> new owner
  millis next_stable_point_ = 0;

  queue_outbox out_;
  queue_counters counters_;
};

} // namespace dice
