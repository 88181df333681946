#pragma once
// One node's replicated task queue (seed 000) in one object: the paper's
// subsystems (communication, known tasks, ready queue, ranking, running
// tasks, unknown-task resolution; the paper's finished tasks are the
// replica's terminal states, in known tasks), each a state machine of
// its own folder, exchanging the events of queue_events.hpp, which this
// class delivers: each subsystem from its own mailbox in an order drawn
// from a seed, some events left waiting from one input to the next
// (interleave(), as CAF may run the actors; what dice-sim and the seeded
// sweeps use; drain() handles what waits), or else in one FIFO, all
// handled before the input returns.
// dice-node runs the same machines as one actor each (queue/). Inputs are
// received messages, timer ticks, peers' version vectors and liveness, user
// operations and executor reports; outputs are collected in an outbox.
// Time and randomness are injected.
//
// The protocol in short:
//  - submit: ENQUEUE broadcast; acknowledged once a peer's Ack or version
//    vector covers it (or no other node is alive).
//  - a free seat (slot or prefetch) claims a ready task: DEQUEUE with its
//    Claim for (task, attempt), then a window; it then executes only if
//    the merged state still names its claim. The merge order picks the
//    same winner on every replica, however late a claim is.
//  - contention: every node matches the ready tasks to the free seats of
//    the live nodes the same way (ready_queue/claim_matching.hpp) and
//    claims its own matches at once, with the short matched claim window,
//    so nodes with the same view claim disjoint tasks; a seat left
//    unmatched waits one claim_stagger_ms plus its rendezvous rank times
//    claim_stagger_ms before it claims, with the longer claim window. A
//    losing claimer is told at once by the winner and by about
//    claim_helpers other nodes.
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
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "communication/communication_machine.hpp"
#include "dice.pb.h"
#include "known_tasks/known_tasks_machine.hpp"
#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_counters.hpp"
#include "queue_node/queue_outbox.hpp"
#include "queue/queue_routes.hpp"
#include "ranking/ranking_machine.hpp"
#include "ready_queue/ready_queue_machine.hpp"
#include "running_tasks/running_tasks_machine.hpp"
#include "unknown_resolver/unknown_resolver_machine.hpp"

namespace dice {


class queue_node {
public:
  /// `incarnation` grows on every restart: this node's ops are numbered per
  /// (id, incarnation), since a restarted node remembers nothing.
  /// Throws std::invalid_argument for an empty id or a config with a problem.
  queue_node(std::string id, std::uint64_t incarnation, std::uint64_t seed,
             queue_config cfg = {});
  // The mailboxes hold handlers bound to this object.
  queue_node(const queue_node&) = delete;
  queue_node& operator=(const queue_node&) = delete;

  // -- inputs -------------------------------------------------------------

  /// A queue message from a peer (header's sender_id filled). Other bodies
  /// are ignored.
  void on_message(const wire::Message& m, millis now);
  /// The same, for a message several nodes read (a simulated broadcast):
  /// held, not copied, until the node's mailbox gets to it.
  void on_message(std::shared_ptr<const wire::Message> m, millis now);
  void tick(millis now);
  /// A peer's membership heartbeat: its version vector and replica digest.
  void on_peer_heartbeat(const std::string& peer, std::uint64_t incarnation,
                         const wire::Heartbeat& hb, millis now);
  void on_peer_heartbeat(const std::string& peer, std::uint64_t incarnation,
                         std::shared_ptr<const wire::Heartbeat> hb, millis now);
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
  /// Merges what a journal held at start (before any other input), then
  /// hands every later change of the replica to `sink` (none: memory only),
  /// as dice-node does with its journal.
  void restore(const std::vector<wire::TakeMyTask>& records,
               replica_sink* sink, millis now);
  /// A slot took an execution started through the outbox (at `now`).
  void execution_begun(const std::string& task_id, std::uint32_t attempt,
                       millis now);
  /// The executor's report for an execution started through the outbox;
  /// `started` is when it began running (0: when it was ordered).
  void execution_finished(const std::string& task_id, std::uint32_t attempt,
                          bool ok, const std::string& result, millis now,
                          millis started = 0);
  /// The same, with every detail of the report (a final failure, an
  /// expiry reached while waiting for a slot).
  void execution_finished(ev::execution_report report, millis now);

  // -- outputs ------------------------------------------------------------

  queue_outbox take_outbox();
  const queue_outbox& outbox() const { return out_; }

  /// Puts this node's version vector and replica digest into its
  /// membership heartbeat.
  void fill_heartbeat(wire::Heartbeat* hb) const {
    communication_.fill_heartbeat(hb);
  }
  const version_vector& seen() const { return communication_.seen(); }
  const std::map<std::string, millis>& superseded() const {
    return communication_.superseded();
  }

  /// True once another replica holds the submitted task's ENQUEUE.
  bool acknowledged(const std::string& task_id) const {
    return communication_.acknowledged(task_id);
  }
  /// True if some peer's version vector covers `op`.
  bool replicated(const wire::OpId& op) const {
    return communication_.replicated(op);
  }

  // -- views --------------------------------------------------------------

  const std::string& id() const { return mc_.node_id; }
  const std::string& origin() const { return origin_; }
  const queue_config& config() const { return mc_.queue; }
  const known_tasks& replica() const { return known_tasks_.replica(); }
  const ready_queue& ready() const { return ready_queue_.order(); }
  /// The numbers of the tasks this replica forgot.
  const forgotten_set& forgotten() const { return known_tasks_.forgotten(); }
  const running_tasks& running() const { return running_tasks_.running(); }
  const unknown_resolver& resolver() const {
    return unknown_resolver_.resolver();
  }
  const op_log& log() const { return communication_.log(); }
  queue_counters counters() const;
  /// True if this node recovers dead members and announces the stable point.
  bool acts_as_coordinator() const {
    return communication_.acts_as_coordinator();
  }
  /// The node answering for a task: the coordinator that adopted it after
  /// its enqueuer died, or the enqueuer ("" if the task is unknown).
  std::string owner_of(const std::string& task_id) const {
    return known_tasks_.owner_of(task_id);
  }
  /// Dead members not yet recovered by an announcement this node heard.
  const std::set<std::string>& unrecovered() const {
    return communication_.unrecovered();
  }
  /// Claims waiting for their window to end.
  std::size_t pending_claims() const { return ranking_.pending_claims(); }

  /// Delivers an event to its station (the router's sink).
  template <station S, class E>
  void deliver(const E& e);

  /// One event as a station takes it, before it is handled. `id` numbers
  /// the deliveries; `cause` is the delivery whose handling emitted the
  /// event (0: an input, e.g. a datagram, a tick or a user operation).
  /// Causes are kept in FIFO order only (interleaved, they are 0).
  struct trace_point {
    station to;
    const ev::event& event;
    std::uint64_t id = 0;
    std::uint64_t cause = 0;
  };
  /// Sees every event delivered: the protocol as a trace
  /// (tests/queue/claim_trace_test.cpp). Off when empty.
  using tracer = std::function<void(const trace_point&)>;
  void trace(tracer t) { tracer_ = std::move(t); }

  /// From now on, runs the subsystems as CAF may run their actors: each
  /// has its own mailbox, handled in order, and a choice seeded by `seed`
  /// picks whose next event is handled. An input waits in its subsystem's
  /// mailbox behind what is there; after each input a seeded number of
  /// events is handled and a few may wait for the next inputs, as events
  /// still queued at one actor when the next datagram or tick arrives.
  /// What leaves the node (outbox) leaves when emitted.
  /// Without it every event waits in one FIFO, the order a single mailbox
  /// would give, and is handled before the input returns.
  void interleave(std::uint64_t seed);
  /// Handles everything waiting in the mailboxes (interleaved), and all
  /// it leads to: call it before reading results that must be complete.
  void drain();
  /// Events and inputs waiting in the mailboxes (always 0 in FIFO order).
  std::size_t pending() const;

private:
  using input = std::function<void(ev::events&)>;
  static constexpr std::uint32_t all_stations = (1u << station_count) - 1;

  // Delivers `fresh` and everything it leads to, in FIFO order, or puts it
  // in the mailboxes and settles.
  void run(ev::events fresh);
  // An input to station `s`: FIFO, handled now; interleaved, put last in
  // s's mailbox.
  void post(station s, input handle);
  // A tick for station `s`, unless one waits in its mailbox already.
  void tick_at(station s, input handle);
  // Interleaved: a seeded number of deliveries after an input.
  void settle();
  // Delivers the next event of a mailbox the seed picks among the
  // non-empty ones of `from` (a bit per station); false if all are empty.
  bool deliver_one(std::uint32_t from);
  // Interleaved: a user operation answers at once, so first known_tasks
  // and communication handle what waits for them.
  void answer_after_waiting();
  template <class E>
  void to_world(const E& e);

  machine_config mc_;
  std::string origin_;

  communication_machine communication_;
  known_tasks_machine known_tasks_;
  ready_queue_machine ready_queue_;
  ranking_machine ranking_;
  running_tasks_machine running_tasks_;
  unknown_resolver_machine unknown_resolver_;

  millis now_ = 0;
  ev::events emitted_;
  std::deque<ev::event> mailbox_;
  // Interleaved: each subsystem's mailbox (each event or input bound to
  // its handling there), whether a tick waits in it, and the choice of
  // the next one.
  std::array<std::deque<std::function<void()>>, station_count> boxes_;
  std::array<bool, station_count> tick_waiting_{};
  std::optional<std::mt19937_64> interleaving_;
  queue_outbox out_;
  tracer tracer_;
  // For the trace: the last delivery's id, the cause of the event being
  // delivered, of each event in emitted_ and of each waiting in mailbox_.
  std::uint64_t delivery_id_ = 0, traced_cause_ = 0;
  std::vector<std::uint64_t> emitted_causes_;
  std::deque<std::uint64_t> causes_;
};

} // namespace dice
