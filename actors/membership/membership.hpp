#pragma once
// The membership actor: heartbeats, failure detection and peer gossip.
// Other subsystems subscribe to peer changes (a member declared dead, a
// member restarted) instead of watching heartbeats themselves.
#include <functional>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "membership/membership_state.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::peer_change)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::wire::Heartbeat)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<dice::node_view>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::membership_counters)

namespace dice {

using peer_listener =
  caf::typed_actor<caf::reacts_to<peer_event_atom, peer_change>>;

using membership = caf::typed_actor<
  caf::reacts_to<inbound_atom, wire::Message>,
  caf::reacts_to<inbound_atom, std::vector<wire::Message>>,
  caf::reacts_to<tick_atom>,
  caf::reacts_to<subscribe_atom, peer_listener>,
  // fields other subsystems add to every heartbeat (the queue's versions)
  caf::reacts_to<versions_atom, wire::Heartbeat>,
  caf::replies_to<nodes_atom>::with<std::vector<node_view>>,
  caf::replies_to<stats_atom>::with<membership_counters>>;

struct membership_actor_config {
  std::string self_id;
  std::string self_addr;
  std::uint64_t incarnation = 0;
  membership_config timing;
  std::vector<std::string> seeds;
  std::function<millis()> clock; // defaults to the wall clock
  /// Told once, with a one-line reason, when this node must not go on (a
  /// live node holds its id). The node has stopped talking by then.
  std::function<void(const std::string&)> on_fatal;
};

/// Spawns membership and subscribes it to the bridge's membership topic.
membership spawn_membership(caf::actor_system& sys, broadcast_bridge bridge,
                            membership_actor_config cfg);

} // namespace dice
