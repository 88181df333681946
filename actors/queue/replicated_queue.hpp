#pragma once
// The replicated queue actor: one node's replica (queue_node and the paper's
// subsystems it composes), fed by the bridge, membership and the executor.
// User operations answer once they hold: submit answers with the task id
// only after another replica holds the task (or no other node is alive).
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "executor/executor.hpp"
#include "membership/membership.hpp"
#include "queue_node/queue_node.hpp"

namespace dice {

/// One task of the replica as the API shows it.
struct task_row {
  bool has_spec = false;
  wire::TaskSpec spec;
  wire::TaskState state;
  std::string owner; // enqueuer, or the coordinator that adopted the task
};

} // namespace dice

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::wire::TaskSpec)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::task_row)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<dice::task_row>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::queue_counters)

namespace dice {

/// Gets every change of a task's merged state on this replica.
using task_listener =
  caf::typed_actor<caf::reacts_to<task_event_atom, task_row>>;

using replicated_queue = caf::typed_actor<
  caf::reacts_to<inbound_atom, wire::Message>,        // queue, sync, heartbeats
  caf::reacts_to<peer_event_atom, peer_change>,        // from membership
  caf::reacts_to<executed_atom, execution_result>,     // from the executor
  caf::reacts_to<coordinator_atom, std::string>,       // from the election
  caf::reacts_to<tick_atom>,
  caf::reacts_to<subscribe_atom, task_listener>,       // task events
  // enqueue; the answer is the task id, once replicated
  caf::replies_to<submit_atom, wire::TaskSpec>::with<std::string>,
  caf::replies_to<remove_atom, std::string>::with<bool>, // removeByID
  caf::replies_to<cancel_atom, std::string>::with<bool>,
  caf::replies_to<tasks_atom>::with<std::vector<task_row>>,
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
