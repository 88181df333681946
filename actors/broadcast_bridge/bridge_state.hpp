#pragma once
// The broadcast bridge's logic without I/O: stamps outgoing messages with the
// envelope header and seals them; opens, authenticates and de-duplicates
// incoming datagrams. Every rejected datagram is counted, never thrown.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broadcast_bridge/bridge_counters.hpp"
#include "broadcast_bridge/keyring.hpp"
#include "broadcast_bridge/relay_routes.hpp"
#include "broadcast_bridge/replay_floors.hpp"
#include "broadcast_bridge/replay_window.hpp"
#include "common/defaults.hpp"
#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

struct bridge_identity {
  std::string cluster_id;
  std::string node_id;
  std::string addr;              // advertised HOST:PORT
  std::uint64_t incarnation = 0;
};

struct bridge_limits {
  std::size_t max_datagram_bytes = defaults::max_datagram_bytes;
  std::size_t bundle_bytes = defaults::bundle_bytes;
  std::uint64_t replay_window = default_replay_window;
  /// Incarnation notices a node sends per second at most: a replayed probe
  /// (it asserts nothing, so it is always answered) costs one notice.
  std::uint32_t notices_per_second = 32;
};

/// The bytes of bundled parts one datagram of `self` may carry: the bundle
/// budget less room for the bundle's header and the envelope around it.
std::size_t bundle_budget(const bridge_identity& self,
                          const bridge_limits& limits);

/// A sealed datagram with its relay mark set to `mark` (the mark is
/// outside the tag: the signature still holds); "" if it is no datagram.
std::string relay_marked(const std::string& datagram, relay_mark mark);

class bridge_state {
public:
  /// Datagrams are signed with the keyring's primary and accepted under
  /// any of its keys; an empty keyring disables authentication (loopback
  /// or --insecure).
  bridge_state(bridge_identity self, keyring keys, bridge_limits limits = {});
  /// One key (empty: none).
  bridge_state(bridge_identity self, std::string cluster_key,
               bridge_limits limits = {})
    : bridge_state(std::move(self), keyring(std::move(cluster_key)), limits) {}

  /// Fills the header of `m` (whose body is set) and returns the datagram,
  /// or nullopt if it would exceed the size limit (counted as a send error).
  std::optional<std::string> seal(wire::Message m, millis now);

  /// Seals `parts` (bodies set), in order, in as few datagrams as
  /// `bundle_bytes` allows (see bundle.hpp); a part larger than that goes
  /// alone. A part over the datagram limit is counted as a send error and
  /// left out.
  std::vector<std::string> seal_all(std::vector<wire::Message> parts,
                                    millis now);

  /// Opens a received datagram; nullopt means dropped (and counted). A
  /// bundle comes back whole and checked: take it apart with unbundle().
  /// An IncarnationProbe passes without the replay check (it asserts
  /// nothing): answer it with answer_probe(), nothing else.
  /// `relay`, when given, is set to the datagram's relay mark.
  std::optional<wire::Message> open(const std::string& datagram,
                                    relay_mark* relay = nullptr);

  /// The IncarnationNotice (body only) for an opened probe: the highest
  /// incarnation of the prober's id heard here, from any address, to be
  /// sealed and sent to probe.sender_addr(). nullopt when over
  /// notices_per_second (counted) or `probe` is no probe.
  std::optional<wire::Message> answer_probe(const wire::Message& probe,
                                            millis now);

  /// What the replay windows hold, to be kept across a restart, and what a
  /// restarted node takes back from its previous life.
  replay_floors floors() const { return replay_.floors(); }
  void restore(const replay_floors& floors);

  /// Counts one datagram handed to the transport (or that failed to go).
  void count_sent(std::size_t bytes, bool ok);
  /// Counts datagrams passed on for their origin (super-peer relaying).
  void count_relayed(std::size_t datagrams, bool to_everyone) {
    counters_.relayed += datagrams;
    counters_.relayed_to_everyone += to_everyone ? 1 : 0;
  }
  /// Counts a message for a node whose address is unknown.
  void count_unaddressed() { ++counters_.unaddressed; }

  /// The keys in use; changed only between datagrams (the bridge actor
  /// installs, uses and removes keys as the HTTP API asks).
  const keyring& keys() const { return keys_; }
  keyring& keys() { return keys_; }

  /// Key ids heard for the first time on datagrams this node cannot check
  /// (no key of that id here), since the last call: the caller logs each
  /// once. At most unknown_key_ids_limit ids are ever reported.
  std::vector<std::string> take_unknown_key_notices() {
    return std::exchange(unknown_key_notices_, {});
  }

  const bridge_counters& counters() const { return counters_; }
  const bridge_identity& identity() const { return self_; }
  const bridge_limits& limits() const { return limits_; }

private:
  // Adds `m` (a bundle part by part) to counters_.by_kind.
  void count_kind(const wire::Message& m, bool sent);

  // Counts a datagram dropped for naming key `id`, not held here.
  void count_unknown_key(const std::string& id);

  bridge_identity self_;
  keyring keys_;
  std::vector<std::string> unknown_key_notices_;
  bridge_limits limits_;
  std::uint64_t next_sequence_ = 1;
  replay_window replay_;
  millis notices_since_ = 0;        // start of the current second
  std::uint32_t notices_in_second_ = 0;
  bridge_counters counters_;
};

} // namespace dice
