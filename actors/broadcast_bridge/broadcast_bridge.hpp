#pragma once
// The broadcast bridge actor: the only place where datagrams meet the actor
// system. Subsystems hand it wire messages to broadcast or send (to a node
// id: it alone knows where peers listen, see peer_addresses.hpp), and
// subscribe to the topics they handle; it seals, authenticates and
// de-duplicates.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/peer_addresses.hpp"
#include "broadcast_bridge/transport.hpp"
#include "type_ids.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::peer_directory)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::keyring_view)

namespace dice {

/// Anything that takes inbound wire messages of a topic: one, or the
/// several that one batch of datagrams brought, in order.
using wire_listener =
  caf::typed_actor<caf::reacts_to<inbound_atom, wire::Message>,
                   caf::reacts_to<inbound_atom, std::vector<wire::Message>>>;

using broadcast_bridge = caf::typed_actor<
  // to every known peer (or the multicast group); the broadcasts queued at
  // once leave together, in as few datagrams as fit (see bundle.hpp)
  caf::reacts_to<broadcast_atom, wire::Message>,
  caf::reacts_to<broadcast_atom, std::vector<wire::Message>>, // a burst
  // a broadcast that rides along with the next one, or leaves alone after
  // the given milliseconds: a periodic message (a RUNNING heartbeat) then
  // shares the datagram of another (the membership heartbeat)
  caf::reacts_to<piggyback_atom, wire::Message, millis>,
  // to itself: send the broadcasts collected so far
  caf::reacts_to<flush_atom>,
  // to itself: keep the replay floors in the data dir (when it has one)
  caf::reacts_to<tick_atom>,
  // to one HOST:PORT
  caf::reacts_to<send_atom, std::string, wire::Message>,
  // to one node id, wherever peer_addresses says it listens (counted as
  // unaddressed if nowhere)
  caf::reacts_to<send_to_atom, std::string, wire::Message>,
  // membership's view of where peers listen, kept current by membership
  caf::reacts_to<peers_atom, peer_directory>,
  // topic: "membership", "queue", "sync", "election", "tester", "mutex" or
  // "causal"
  caf::reacts_to<subscribe_atom, std::string, wire_listener>,
  // datagrams from the transport
  caf::reacts_to<datagram_atom, std::vector<datagram>>,
  caf::replies_to<stats_atom>::with<bridge_counters>,
  // the keyring (issue 32): list; install a key, make one primary, remove
  // one, each answered with "" or why nothing changed
  caf::replies_to<keys_atom>::with<keyring_view>,
  caf::replies_to<keys_atom, install_atom, std::string>::with<std::string>,
  caf::replies_to<keys_atom, use_atom, std::string>::with<std::string>,
  caf::replies_to<keys_atom, remove_atom, std::string>::with<std::string>>;

struct bridge_config {
  bridge_identity self;
  std::string cluster_key;      // one key; ignored when `keys` is set
  std::optional<keyring> keys;  // the start keyring (the node's)
  /// Where every change of the keyring is written (`<data-dir>/keyring`);
  /// empty: changes last as long as the process.
  std::string keyring_file;
  /// Given the keyring after every change, for the threads that sign and
  /// check outside the bridge (blob transfers); may be null.
  std::shared_ptr<published_keyring> published;
  bridge_limits limits;
  std::shared_ptr<transport> net;
  std::function<millis()> clock; // defaults to the wall clock
  /// Where the replay windows' floors outlive the process (in the data
  /// dir): read at start, written every replay_floors_save_ms and at exit.
  /// Empty: replay protection lasts as long as the process.
  std::string replay_file;
  /// How often the replay windows' floors are written to the data dir (and at
  /// a clean stop): after kill -9, datagrams of at most this last stretch
  /// before the crash could be replayed once at the restarted node.
  millis replay_floors_save_ms = 1000;
};

broadcast_bridge spawn_broadcast_bridge(caf::actor_system& sys,
                                        bridge_config cfg);

} // namespace dice
