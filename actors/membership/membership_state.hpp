#pragma once
// Membership (seed 004): who is in the cluster and who is alive, as a pure
// state machine. The membership actor feeds it decoded wire messages and a
// periodic tick, and sends what it returns; time is always passed in.
//
// Liveness is judged only from direct contact. Gossip (the peer lists in
// Heartbeat and ConnectRep) introduces new nodes and new incarnations but
// never keeps a node alive, so a crashed node is declared dead by everyone
// even while others still gossip it.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/defaults.hpp"
#include "common/time.hpp"
#include "dice.pb.h"
#include "membership/node_view.hpp"

namespace dice {

struct membership_config {
  millis heartbeat_interval_ms = defaults::heartbeat_interval_ms;
  millis suspect_after_ms = defaults::suspect_after_ms;
  millis dead_after_ms = defaults::dead_after_ms;
  millis failure_check_ms = defaults::failure_check_ms;
  millis forget_dead_after_ms = defaults::forget_dead_after_ms;
  std::size_t gossip_peers_per_heartbeat = defaults::gossip_peers_per_heartbeat;

  /// Empty when usable, otherwise a one-line reason naming the bad option.
  std::string problem() const;
};

class membership_state {
public:
  /// Throws std::invalid_argument for an empty id or a config with a problem.
  membership_state(std::string self_id, std::string self_addr,
                   std::uint64_t incarnation, membership_config cfg = {});

  /// A --peer address whose node id we do not know yet.
  void add_seed(const std::string& addr);

  // -- inputs: decoded messages whose header the bridge has authenticated ---

  std::vector<peer_change> on_heartbeat(const wire::Message& m, millis now);

  /// Fills `reply`'s body with a ConnectRep (self plus live peers) for the
  /// caller to send to m.sender_addr(). `reply` is left untouched when the
  /// connect is dropped (stale, or sent under our own id): send only if
  /// reply->has_connect_rep().
  std::vector<peer_change> on_connect(const wire::Message& m, millis now,
                                      wire::Message* reply);

  std::vector<peer_change> on_connect_rep(const wire::Message& m, millis now);

  /// Failure detection by silence; forgets peers dead for long enough.
  /// Call it every failure_check_ms.
  std::vector<peer_change> tick(millis now);

  /// True for the tick that should send the next heartbeat (and Connects):
  /// once per heartbeat interval, on a fixed schedule that a late tick
  /// does not shift.
  bool heartbeat_due(millis now);

  // -- outputs ---------------------------------------------------------------

  /// A Heartbeat body gossiping at most gossip_peers_per_heartbeat peers;
  /// successive calls rotate through a larger table.
  wire::Message make_heartbeat();

  /// Seed addresses not yet resolved to a known alive peer: send each a
  /// Connect once per heartbeat interval.
  std::vector<std::string> seeds_to_connect() const;

  /// Every known peer (any state, so partitions heal) plus unresolved seeds;
  /// never self, no duplicates.
  std::vector<std::string> heartbeat_targets() const;

  /// Addresses of alive and suspect peers.
  std::vector<std::string> broadcast_targets() const;

  /// Self first, then peers sorted by id.
  std::vector<node_view> view(millis now) const;

  /// The peers not dead, as joins: what a listener that subscribes now has
  /// missed (peers found before it was there).
  std::vector<peer_change> known_peers() const;

  /// Ids of alive nodes including self, sorted.
  std::vector<std::string> live_ids() const;

  std::optional<peer_state> state_of(const std::string& id) const;

  std::uint64_t incarnation() const { return incarnation_; }
  const std::string& id() const { return self_id_; }
  const std::string& addr() const { return self_addr_; }

  /// Messages from another node claiming our id (a misconfigured cluster).
  std::uint64_t conflicting_ids() const { return conflicting_ids_; }
  /// Messages from an older incarnation of a peer, dropped.
  std::uint64_t stale_messages() const { return stale_messages_; }

private:
  struct peer_entry {
    std::string addr;
    peer_state state = peer_state::alive;
    std::uint64_t incarnation = 0;
    millis last_seen_ms = 0;
  };
  using peer_table = std::map<std::string, peer_entry>;

  bool hear_directly(const wire::Message& m, millis now,
                     std::vector<peer_change>& changes);
  void merge_gossip(const google::protobuf::RepeatedPtrField<wire::Peer>& peers,
                    millis now, std::vector<peer_change>& changes);
  bool seed_resolved(const std::string& addr) const;

  std::string self_id_;
  std::string self_addr_;
  std::uint64_t incarnation_;
  membership_config cfg_;
  peer_table peers_;
  std::set<std::string> seeds_;
  /// Id of the last peer gossiped; the next heartbeat continues after it.
  std::string gossip_cursor_;
  millis next_heartbeat_ = 0; // the first tick sends one
  std::uint64_t conflicting_ids_ = 0;
  std::uint64_t stale_messages_ = 0;
};

} // namespace dice
