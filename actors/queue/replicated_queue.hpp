#pragma once
// The node facade of the replicated queue: the one actor the rest of the
// node talks to. It spawns the queue's subsystem actors (communication,
// known_tasks, ready_queue, ranking, running_tasks, finished_tasks,
// unknown_resolver; see queue_interfaces.hpp), wires them to one another,
// passes them what membership, the election and the executor report (the
// bridge hands received datagrams to communication itself), and carries
// out what they send out: broadcasts, executions, task events, and the
// answers to user operations. Submit answers with the task
// id only once another replica holds the task (or no other node is alive).
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "executor/executor.hpp"
#include "membership/membership.hpp"
#include "queue/queue_interfaces.hpp"

namespace dice {

/// Gets every change of a task's merged state on this replica.
using task_listener =
  caf::typed_actor<caf::reacts_to<task_event_atom, task_row>>;

using replicated_queue = queue_world::extend<
  caf::reacts_to<peer_event_atom, peer_change>,        // from membership
  caf::reacts_to<executed_atom, execution_result>,     // from the executor
  caf::reacts_to<coordinator_atom, std::string>,       // from the election
  caf::reacts_to<subscribe_atom, task_listener>,       // task events
  // enqueue; the answer is the task id, once replicated
  caf::replies_to<submit_atom, wire::TaskSpec>::with<std::string>,
  // several at once: all ids once all are replicated, else the first error
  caf::replies_to<submit_atom, std::vector<wire::TaskSpec>>::with<
    std::vector<std::string>>,
  caf::replies_to<remove_atom, std::string>::with<bool>, // removeByID
  caf::replies_to<cancel_atom, std::string>::with<bool>,
  caf::replies_to<tasks_atom, task_query>::with<std::vector<task_row>>,
  caf::replies_to<tasks_atom, stats_atom>::with<task_counts>,
  caf::replies_to<stats_atom>::with<queue_counters>>;

struct queue_actor_config {
  std::string node_id;
  std::uint64_t incarnation = 0;
  queue_config queue;
  millis tick_ms = 10;
  std::function<millis()> clock; // defaults to the wall clock
};

/// Spawns the queue and wires it to the bridge (queue, sync and membership
/// topics), membership (peer events, version vectors in heartbeats) and the
/// executor (results).
replicated_queue spawn_replicated_queue(caf::actor_system& sys,
                                        queue_actor_config cfg,
                                        broadcast_bridge bridge,
                                        membership members, executor exec);

} // namespace dice
