#pragma once
// The causal broadcast actor: runs causal_machine on the membership view,
// the causal topic of the bridge and its own timer. Users publish events
// and read or follow what this node delivered, in causal order.
#include <functional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "causal/causal_machine.hpp"
#include "membership/membership.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::causal_delivery)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<dice::causal_delivery>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::causal_stats)

namespace dice {

/// Told every event this node delivers, in delivery order.
using causal_listener =
  caf::typed_actor<caf::reacts_to<causal_atom, causal_delivery>>;

using causal_actor = caf::typed_actor<
  caf::reacts_to<inbound_atom, wire::Message>, // the causal topic
  caf::reacts_to<inbound_atom, std::vector<wire::Message>>,
  caf::reacts_to<peer_event_atom, peer_change>, // from membership
  caf::reacts_to<tick_atom>,
  // topic, data: the event as delivered here
  caf::replies_to<publish_atom, std::string, std::string>::with<causal_delivery>,
  // topic ("" for all), after this delivery index: the recent events
  caf::replies_to<events_atom, std::string, std::uint64_t>::with<
    std::vector<causal_delivery>>,
  caf::reacts_to<subscribe_atom, causal_listener>,
  caf::replies_to<stats_atom>::with<causal_stats>>;

struct causal_actor_config {
  std::string self_id;
  causal_config tuning;
  std::function<millis()> clock; // defaults to the wall clock
};

causal_actor spawn_causal(caf::actor_system& sys, causal_actor_config cfg,
                          broadcast_bridge bridge, membership members);

} // namespace dice
