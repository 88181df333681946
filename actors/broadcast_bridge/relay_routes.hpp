#pragma once
// Super-peer relaying (seed 001, "large-scale election"): where a queue
// broadcast goes once the cluster elects super-peers (--super-peers). A
// member sends it, marked first-hand, to its super-peer and to the next
// super-peer (a second way in: a relayed copy crosses three links); each
// passes it on to its members (marked relayed) and, marked to-members, to
// the other super-peers, which pass it on to theirs. A member then sends
// two datagrams per broadcast instead of N-1, and a super-peer about
// 2*sqrt(N) per broadcast it relays.
//
// Views may disagree while membership settles. Each node's heartbeat names
// the super-peer it relays through, and super-peers pass on to those names
// too (membership_state), so a node hears through the one it chose. A node
// handed a first-hand copy that does not serve in its own view passes it
// to the super-peers it knows (with the election off here, to everyone).
// Some nodes then get a copy twice (their replay window drops it); one
// whose chooser's view is stale may miss it, and anti-entropy brings it.
// Plain class, no CAF.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dice {

/// What a node that takes a datagram does with it besides reading it (the
/// Envelope's `relay` field).
/// none: sent direct, read only; first_hand: from its origin, pass it on to
/// your members and the other super-peers; to_members: from a super-peer,
/// pass it on to your members; relayed: a relayed copy, read it (and, if
/// you serve, pass it on to your members: see pass_on).
enum class relay_mark : std::uint32_t {
  none = 0, first_hand = 1, to_members = 2, relayed = 3
};

/// The election as this node relays by it (membership's, by node id).
struct relay_view {
  /// This node's super-peer (itself when it serves); "": no relaying.
  std::string super_peer;
  /// The other super-peers: elected in this view, or named by a peer's
  /// heartbeat as the one it relays through.
  std::vector<std::string> super_peers;
  /// Its members in this view when it is elected, and every peer whose
  /// heartbeat names it (named, it serves even where it is not elected).
  std::vector<std::string> attached;
  bool operator==(const relay_view& o) const {
    return super_peer == o.super_peer && super_peers == o.super_peers
           && attached == o.attached;
  }
  bool operator!=(const relay_view& o) const { return !(*this == o); }
};

/// Addresses one datagram goes to, by the mark it carries there.
struct relay_fan_out {
  std::vector<std::string> relayed;    // members: relay_mark::relayed
  std::vector<std::string> first_hand; // this node's super-peer
  std::vector<std::string> to_members; // the other super-peers
  /// relay_mark::none, to everyone: this node was taken for a super-peer
  /// it is not.
  std::vector<std::string> direct;
  std::size_t datagrams() const {
    return relayed.size() + first_hand.size() + to_members.size() + direct.size();
  }
};

class relay_routes {
public:
  explicit relay_routes(std::string self_id = {}) : self_id_(std::move(self_id)) {}

  /// The view, with its ids resolved by `where` (id -> HOST:PORT, "" if
  /// unknown), and `everyone`: the targets of a direct broadcast.
  void set(const relay_view& view,
           const std::function<std::string(const std::string&)>& where,
           const std::vector<std::string>& everyone);

  /// This node's queue broadcasts are relayed: it has a super-peer (itself
  /// included) whose address is known.
  bool active() const { return active_; }
  /// It passes on what it is handed: elected in its own view, or named by
  /// some peer as the one that peer relays through.
  bool serves() const {
    return !view_.super_peer.empty()
           && (view_.super_peer == self_id_ || !view_.attached.empty());
  }

  /// Where this node's own relayed broadcast goes.
  const relay_fan_out& own() const { return own_; }

  /// Where a datagram that came marked `mark` from the node at
  /// `origin_addr` goes on (a direct one, unmarked: nowhere). A node that
  /// serves passes a relayed copy on to its members too: in one agreed
  /// view it never gets one, but where views differ it may take a relayed
  /// copy from one super-peer before the marked one from another, and the
  /// first copy is the one it takes.
  relay_fan_out pass_on(relay_mark mark, const std::string& origin_addr) const;

private:
  void plan_own();

  std::string self_id_;
  relay_view view_;
  std::vector<std::string> everyone_, others_, members_;
  std::string super_peer_addr_;
  bool active_ = false;
  relay_fan_out own_;
};

} // namespace dice
