#pragma once
// What the election actor does, as a plain class: it turns membership
// changes into the algorithm's view of live ids, decodes Election messages
// from the wire (counting bad ones), hands the algorithm's sends on by node
// id (the bridge knows where peers listen), and notices when the coordinator changes. No CAF, no clock.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "election/election.hpp"
#include "membership/live_peers.hpp"
#include "membership/node_view.hpp"

namespace dice {

/// What GET /election shows.
struct election_view {
  std::string algorithm;
  std::optional<std::string> coordinator;
  std::string state;
  std::string group;
  std::vector<std::string> members;
  std::uint64_t elections_started = 0;
  std::uint64_t ignored = 0;    // of a kind the algorithm does not expect
  std::uint64_t malformed = 0;  // no sender or no Election body
  /// Messages of another algorithm: a peer started with another --election.
  std::uint64_t other_algorithm = 0;
  /// Peers heard running another algorithm, and which one (last heard).
  std::map<std::string, std::string> mismatched;
};

/// A peer heard running another election algorithm than this node.
struct algorithm_mismatch {
  std::string peer;
  std::string algorithm;
};

/// One datagram to hand to the bridge: to a node id, or to everyone.
struct election_datagram {
  std::optional<std::string> to; // none: broadcast
  wire::Message message;
};

class election_node {
public:
  /// Throws std::invalid_argument as make_election does.
  election_node(const std::string& algorithm, std::string self_id,
                election_config cfg);

  /// Membership news: alive and suspect peers are in the view, dead and
  /// forgotten ones are not.
  void on_peer(const peer_change& c, millis now);
  /// A wire message of the election topic.
  void on_wire(const wire::Message& m, millis now);
  void tick(millis now);
  std::optional<millis> next_deadline() const { return algo_->next_deadline(); }

  std::vector<election_datagram> take_datagrams();
  /// The coordinator in the Normal state ("" when there is none), if it
  /// changed since the last call.
  std::optional<std::string> take_coordinator_change();
  /// The coordinator this node acts on: set only in the Normal state.
  std::string acting_coordinator() const;

  /// Peers newly heard running another algorithm (or another one than
  /// before) since the last call: each is logged once, not per message.
  std::vector<algorithm_mismatch> take_mismatches();

  election_view view() const;
  const election_state& algorithm() const { return *algo_; }

private:
  void after(millis now);

  std::string self_;
  std::unique_ptr<election_state> algo_;
  void feed_view(millis now);

  live_peers peers_; // alive and suspect peers
  std::vector<election_datagram> out_;
  std::string announced_; // last coordinator reported by take_coordinator_change
  bool first_ = true;
  std::uint64_t malformed_ = 0;
  std::uint64_t other_algorithm_ = 0;
  std::map<std::string, std::string> mismatched_; // peer -> its algorithm
  std::vector<algorithm_mismatch> new_mismatches_;
};

} // namespace dice
