#pragma once
// The election actor: runs the chosen algorithm (election_node) on the
// membership view, the election topic of the bridge and its own timers, and
// tells subscribers who the coordinator is. The rest of DiCE acts on that:
// the coordinator announces recovery and housekeeping for everyone.
#include <functional>
#include <string>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "election/election_node.hpp"
#include "membership/membership.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::election_view)

namespace dice {

/// Told the coordinator in the Normal state ("" while there is none) on
/// every change, and once when subscribing.
using coordinator_listener =
  caf::typed_actor<caf::reacts_to<coordinator_atom, std::string>>;

using election = caf::typed_actor<
  caf::reacts_to<inbound_atom, wire::Message>,  // the election topic
  caf::reacts_to<inbound_atom, std::vector<wire::Message>>,
  caf::reacts_to<peer_event_atom, peer_change>, // from membership
  caf::reacts_to<tick_atom, std::uint64_t>,
  caf::reacts_to<subscribe_atom, coordinator_listener>,
  caf::replies_to<election_atom>::with<election_view>>;

struct election_actor_config {
  std::string self_id;
  std::string algorithm = default_election_algorithm;
  election_config timing;
  std::function<millis()> clock; // defaults to the wall clock
};

/// Spawns the election actor and subscribes it to the bridge's election
/// topic and to membership's peer events. Throws std::invalid_argument for
/// an unknown algorithm or a bad config.
election spawn_election(caf::actor_system& sys, election_actor_config cfg,
                        broadcast_bridge bridge, membership members);

} // namespace dice
