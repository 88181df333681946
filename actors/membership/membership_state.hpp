#pragma once
// Membership (seed 004): who is in the cluster and who is alive, as a pure
// state machine. The membership actor feeds it decoded wire messages and a
// periodic tick, and sends what it returns; time is always passed in.
//
// Liveness is judged from contact: a peer's own datagrams, or a live
// peer's word that it heard the peer itself lately (a heartbeat's gossip
// says how long ago). Under loss a node's heartbeats to one peer can all
// go missing for a while; those of the others vouch for it meanwhile (at
// 20% loss, three heartbeats lost in a row, one pair in 125 per interval,
// made dead verdicts by the thousand in a 256-node cluster). A word counts
// only as fresh as the voucher's own hearing, never relayed further, so a
// crashed node is still declared dead by everyone about dead_after_ms after
// its last heartbeat, even while others still gossip it. Gossip also
// introduces new nodes and new incarnations; it never revives a dead one.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/defaults.hpp"
#include "common/pause_detector.hpp"
#include "common/time.hpp"
#include "dice.pb.h"
#include "membership/node_view.hpp"
#include "broadcast_bridge/relay_routes.hpp"
#include "super_peers/super_peer_machine.hpp"

namespace dice {

/// Membership's timing (dice-node's --heartbeat-ms, --suspect-after-ms,
/// --dead-after-ms, --failure-check-ms, --gossip-peers).
struct membership_config {
  /// Every node hears every other's heartbeats: N^2 datagrams per interval.
  /// At 32 nodes on 2 cores, 200 ms made heartbeats most of all datagrams
  /// and the cluster CPU-bound even when idle (bench/README.md).
  millis heartbeat_interval_ms = 400;
  /// No word from a peer for this long: suspect.
  millis suspect_after_ms = 1000;
  /// No word from a peer for this long: dead (four heartbeats; detection
  /// stays inside the 2 s target, at most this plus failure_check_ms).
  millis dead_after_ms = 1600;
  /// How often silence is judged, apart from the heartbeat interval, so that
  /// slower heartbeats do not delay failure detection by a whole interval.
  millis failure_check_ms = 100;
  /// Dead peers are forgotten after this long (they rejoin by heartbeat).
  millis forget_dead_after_ms = 60'000;
  /// Peers listed in one heartbeat (the rest rotate through later heartbeats).
  /// Each entry also vouches for a peer heard lately, and parsing
  /// long peer lists was a large share of an idle node's CPU: with 32 idle
  /// nodes on 2 cores, 64 (everyone) cost ~25% more CPU than 8.
  std::size_t gossip_peers_per_heartbeat = 8;
  /// How many super-peers to elect (--super-peers). Computed from the view
  /// and shown by view(); nothing relays through them yet.
  super_peer_config super_peers;

  /// Empty when usable, otherwise a one-line reason naming the bad option.
  std::string problem() const;
};

/// A node that spoke under the id of a live peer, refused: tell it.
struct id_refusal {
  std::string id;
  std::string newcomer_addr;
  std::string holder_addr;
};

struct membership_counters {
  std::uint64_t stale_messages = 0;    // from an older incarnation of a peer
  std::uint64_t conflicting_ids = 0;   // under our own id from elsewhere
  std::uint64_t ids_refused = 0;       // newcomers told their id is in use
  std::uint64_t pauses = 0;            // ticks late enough to be a pause
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

  /// A peer says our id is held by a live node elsewhere: the one-line
  /// reason this node must stop, or nullopt if the notice is not for us.
  std::optional<std::string> on_id_in_use(const wire::Message& m) const;

  /// Newcomers refused since the last call, each to be sent an IdInUse.
  std::vector<id_refusal> take_refusals();

  /// Failure detection by silence; forgets peers dead for long enough.
  /// Call it every failure_check_ms. A tick far later than that (this
  /// process was paused) first adds the pause to every peer's last word:
  /// their heartbeats of that time are still to be read.
  std::vector<peer_change> tick(millis now);

  /// True for the tick that should send the next heartbeat (and Connects):
  /// once per heartbeat interval, on a fixed schedule that a late tick
  /// does not shift.
  bool heartbeat_due(millis now);

  // -- outputs ---------------------------------------------------------------

  /// A Heartbeat body gossiping at most gossip_peers_per_heartbeat peers,
  /// each with how long ago this node heard it itself; successive calls
  /// rotate through a larger table.
  wire::Message make_heartbeat(millis now);

  /// Seed addresses not yet resolved to a known alive peer: send each a
  /// Connect once per heartbeat interval.
  std::vector<std::string> seeds_to_connect() const;

  /// Every known peer (any state, so partitions heal) plus unresolved seeds;
  /// never self, no duplicates.
  std::vector<std::string> heartbeat_targets() const;

  /// Where each known peer listens (any state), by id: what the bridge
  /// resolves node ids with (peer_addresses.hpp).
  std::map<std::string, std::string> addresses() const;

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

  /// What this node's own heartbeats advertise (the queue adds its slots):
  /// its weight in the super-peer election, as its peers see it.
  void set_self_capacity(const wire::NodeInfo& info);

  /// The super-peer election on the current view, recomputed whenever a
  /// node joins, dies, comes back, changes what it advertises or is first
  /// heard directly.
  const super_peer_assignment& super_peers() const {
    return super_peers_.current();
  }
  /// The election as the bridge relays by it: empty while the election is
  /// off. A super-peer that dies is replaced once it is found dead; what
  /// its members sent through it meanwhile is lost, and anti-entropy
  /// brings it.
  const relay_view& relay() const { return relay_; }

  /// Changes whenever addresses(), seeds_to_connect() or relay() may have:
  /// what the bridge is told is rebuilt only then, not on every heartbeat
  /// (an O(N) map per heartbeat heard was most of a large cluster's CPU).
  std::uint64_t directory_version() const { return directory_version_; }

  std::uint64_t incarnation() const { return incarnation_; }
  const std::string& id() const { return self_id_; }
  const std::string& addr() const { return self_addr_; }

  membership_counters counters() const;

private:
  struct peer_entry {
    std::string addr;
    peer_state state = peer_state::alive;
    std::uint64_t incarnation = 0;
    /// Its last sign of life: heard itself, or vouched for by a peer that
    /// heard it. Silence is judged from this.
    millis last_seen_ms = 0;
    /// When it was last heard itself (this incarnation): what our own
    /// heartbeats vouch.
    millis last_heard_ms = 0;
    /// Another address speaking under this id while this one is alive: a
    /// restart elsewhere, or a second node started with the id. Which one
    /// shows when this address speaks again (a clash) or falls silent.
    std::string contender;
    bool clash = false; // this address spoke after the contender did
    /// Heard from itself in this incarnation, not only by gossip: it may
    /// be a super-peer.
    bool heard_directly = false;
    /// What its heartbeats advertise, for the super-peer election.
    super_peer_capacity capacity{};
    /// The super-peer its heartbeats say it sends through ("": none).
    std::string relays_through;
  };
  using peer_table = std::map<std::string, peer_entry>;

  bool hear_directly(const wire::Message& m, millis now,
                     std::vector<peer_change>& changes);
  void merge_gossip(const google::protobuf::RepeatedPtrField<wire::Peer>& peers,
                    millis now, std::vector<peer_change>& changes);
  // A live peer heard `gossiped` itself `heard_ms_ago` before now.
  void vouched(const std::string& id, peer_entry& peer,
               const wire::Peer& gossiped, millis now,
               std::vector<peer_change>& changes);
  bool seed_resolved(const std::string& addr) const;
  void refuse_contender(const std::string& id, const peer_entry& peer);
  void elect_super_peers();
  void elect_now();

  std::string self_id_;
  std::string self_addr_;
  std::uint64_t incarnation_;
  membership_config cfg_;
  peer_table peers_;
  std::set<std::string> seeds_;
  /// Where in this node's walk of its peers (by rendezvous_hash of the
  /// pair) the last heartbeat's gossip ended; the next continues after it.
  std::uint64_t gossip_cursor_ = 0;
  millis next_heartbeat_ = 0; // the first tick sends one
  std::vector<id_refusal> refusals_;
  pause_detector pauses_;
  membership_counters counters_;
  super_peer_capacity self_capacity_;
  super_peer_machine super_peers_;
  /// The view changed in a way the election weighs since it last ran.
  bool super_peers_stale_ = true;
  relay_view relay_;
  std::uint64_t directory_version_ = 0;
};

} // namespace dice
