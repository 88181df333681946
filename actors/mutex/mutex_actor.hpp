#pragma once
// The mutex actor: runs the chosen mutual exclusion algorithm (mutex_node)
// on the membership view, the coordinator the election reports, the mutex
// topic of the bridge and its own timers. Tasks take their locks through
// lock_owners (asked by the ready queue); `dice lock` clients through
// lock_atom, as leases they renew while they hold or wait.
#include <functional>
#include <memory>
#include <string>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "election/election_actor.hpp"
#include "membership/membership.hpp"
#include "mutex/mutex_node.hpp"
#include "queue/replicated_queue.hpp"

namespace dice {

/// The answer to a lock request of a client.
struct lock_reply {
  std::string token; // names the client's hold or wait in later requests
  bool held = false;
  /// "" or why the request failed: "lost" when the token is unknown (its
  /// lease ran out, or the node lost the lock).
  std::string error;
};

} // namespace dice

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::lock_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::locks_view)

namespace dice {

using mutex_actor = caf::typed_actor<
  caf::reacts_to<inbound_atom, wire::Message>, // the mutex topic
  caf::reacts_to<inbound_atom, std::vector<wire::Message>>,
  caf::reacts_to<peer_event_atom, peer_change>,   // from membership
  caf::reacts_to<coordinator_atom, std::string>,  // from the election
  caf::reacts_to<task_event_atom, task_row>,      // from the queue
  caf::reacts_to<tick_atom>,             // a wake from the ready queue
  caf::reacts_to<tick_atom, std::uint64_t>, // a scheduled tick
  // resource, token ("" for a new client), wait_ms, lease_ms: answered once
  // held or after wait_ms; the lease (of the hold or the wait) is renewed
  caf::replies_to<lock_atom, std::string, std::string, millis, millis>::with<
    lock_reply>,
  // resource, token: false if the token held or waited for nothing
  caf::replies_to<unlock_atom, std::string, std::string>::with<bool>,
  caf::replies_to<locks_atom>::with<locks_view>>;

struct mutex_actor_config {
  std::string self_id;
  std::string algorithm = default_mutex_algorithm;
  mutex_config timing;
  millis idle_ms = default_task_lock_idle_ms;
  std::shared_ptr<lock_owners> owners;
  std::function<millis()> clock; // defaults to the wall clock
};

/// Spawns the mutex actor and subscribes it to the bridge's mutex topic,
/// membership's peer events, the election's coordinator and the queue's
/// task events (a task's locks go when it ends). Throws
/// std::invalid_argument for an unknown algorithm or a bad config.
mutex_actor spawn_mutex(caf::actor_system& sys, mutex_actor_config cfg,
                        broadcast_bridge bridge, membership members,
                        election elect, replicated_queue queue);

} // namespace dice
