#pragma once
// The tester actor: tells the peers, every --tester-hello-ms, where this
// node's HTTP API serves project blobs and whether it runs tests, and
// records what the peers tell (tester_peers).
#include <memory>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "tester/tester_node.hpp"

namespace dice {

using tester_actor = caf::typed_actor<
  caf::reacts_to<inbound_atom, wire::Message>,
  caf::reacts_to<inbound_atom, std::vector<wire::Message>>,
  caf::reacts_to<tick_atom>>;

/// Subscribes to the bridge's "tester" topic and starts saying hello.
tester_actor spawn_tester_actor(caf::actor_system& sys, broadcast_bridge bridge,
                                std::shared_ptr<tester_parts> parts);

} // namespace dice
