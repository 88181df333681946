#pragma once
// The node facade of the replicated queue: the front door for the user's
// operations, stats and task subscriptions. It spawns the queue's subsystem
// actors (communication, known_tasks, ready_queue, ranking, running_tasks,
// unknown_resolver; see queue_interfaces.hpp) and wires
// them to one another, to the bridge and to the executor: datagrams go
// between the bridge and the subsystems, executions between running_tasks
// and the executor, and membership's peer events and the election's
// outcome to communication, directly. Submit answers with the task id only
// once another replica holds the task (or no other node is alive).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/timestamp.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "election/election_actor.hpp"
#include "executor/executor.hpp"
#include "membership/membership.hpp"
#include "queue/queue_interfaces.hpp"

namespace dice {

/// The answer to an all-or-nothing submit: every task enqueued, with its
/// id, or none and why.
struct submit_receipt {
  std::vector<std::string> ids; // empty when refused
  std::string refused;          // why nothing was enqueued; "" if accepted
  /// Ask (submit_atom, batch) to learn when every task is replicated.
  std::uint64_t batch = 0;
};

/// What became of a receipt's batch, in one answer: whether every task
/// is replicated (true), some was refused (false) or neither is known
/// within the time asked (nullopt); and, if the asker named tasks, their
/// rows once each ended or the wait was over, in the order named (an
/// unknown task as a row without spec).
struct submit_progress {
  std::optional<bool> replicated;
  std::vector<task_row> rows;
};

} // namespace dice

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::submit_receipt)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::submit_progress)

namespace dice {

class replica_journal;
class stats_board;

/// Gets every change of a task's merged state on this replica.
using task_listener =
  caf::typed_actor<caf::reacts_to<task_event_atom, task_row>>;

/// Told what this node runs (its own kinds and those its workers serve)
/// whenever that changes: the worker hub tells the queue.
using runner_listener =
  caf::typed_actor<caf::reacts_to<kinds_atom, runner_capabilities>>;

using replicated_queue = queue_world::extend<
  caf::reacts_to<subscribe_atom, task_listener>,       // task events
  // those of tasks that name locks only (and of tasks with no spec known)
  caf::reacts_to<subscribe_atom, task_listener, locks_atom>,
  // enqueue; the answer is the task id, once replicated
  caf::replies_to<submit_atom, wire::TaskSpec>::with<std::string>,
  // several at once: all ids once all are replicated, else the first error
  caf::replies_to<submit_atom, std::vector<wire::TaskSpec>>::with<
    std::vector<std::string>>,
  // all or nothing, answered at once: refused whole if this node already
  // has queue_config::submit_window tasks waiting for replication, or if
  // the queue reaches it after the timestamp (its asker gave up by then)
  caf::replies_to<submit_atom, std::vector<wire::TaskSpec>,
                  caf::timestamp>::with<submit_receipt>,
  // answers true once every task of a receipt's batch is replicated
  // (false if any was refused); the asker's timeout says how long to wait
  caf::replies_to<submit_atom, std::uint64_t>::with<bool>,
  // the same with a bound (ms), and then, for the ids given (the batch's
  // and any others), a long poll of their ends (ms, 0: as they are now):
  // one question for what a waited submit needs after its receipt
  caf::replies_to<submit_atom, std::uint64_t, millis, std::vector<std::string>,
                  millis>::with<submit_progress>,
  caf::replies_to<remove_atom, std::string>::with<bool>, // removeByID
  caf::replies_to<cancel_atom, std::string>::with<bool>,
  // true: claim nothing new, finish what is held; false: claim again
  caf::reacts_to<drain_atom, bool>,
  // what this node runs now (the worker hub: runner_listener)
  caf::reacts_to<kinds_atom, runner_capabilities>,
  caf::replies_to<tasks_atom, task_query>::with<std::vector<task_row>>,
  // a long poll: the rows of a query of one task once that task has ended
  // (or if it is not known), or after this many ms with what it is then
  caf::replies_to<tasks_atom, task_query, millis>::with<std::vector<task_row>>,
  // the facade's own timer of such a wait (end_waits' ticket)
  caf::reacts_to<tick_atom, std::uint64_t>,
  caf::replies_to<tasks_atom, stats_atom>::with<task_counts>,
  caf::replies_to<stats_atom>::with<queue_counters>,
  // what this node and its live peers can run (their heartbeats say), as
  // the stats board has it
  caf::replies_to<runners_atom>::with<std::vector<runner_capabilities>>>;

struct queue_actor_config {
  std::string node_id;
  std::uint64_t incarnation = 0;
  queue_config queue;
  millis tick_ms = 10;
  std::function<millis()> clock; // defaults to the wall clock
  /// The replica's journal, loaded at start; none: memory only.
  std::shared_ptr<replica_journal> journal;
  /// Started with peers to join (machine_config::joins).
  bool joins = false;
  /// The election whose outcome gives this node its coordinator role;
  /// none: every node acts as coordinator.
  election elector;
  /// Where the subsystems post their counters and what the cluster runs,
  /// for readers outside the queue (the HTTP API); none: the queue's own.
  std::shared_ptr<stats_board> board;
  /// Tests: traces every subsystem's inputs (queue_trace.hpp).
  std::shared_ptr<queue_trace> trace;
};

/// Spawns the queue and wires its communication to the bridge (queue, sync
/// and membership topics), membership (peer events, version vectors in
/// heartbeats) and the election (cfg.elector), and its running_tasks to
/// the executor (results).
replicated_queue spawn_replicated_queue(caf::actor_system& sys,
                                        queue_actor_config cfg,
                                        broadcast_bridge bridge,
                                        membership members, executor exec);

} // namespace dice
