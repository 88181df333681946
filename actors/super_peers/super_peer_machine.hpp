#pragma once
// The super-peer election (seed 001, "large-scale election") as a plain
// state machine: the live nodes of the membership view in, the super-peers
// and every live node's attachment out. No clock, no randomness, no I/O.
//
// Super-peers: the `wanted` count (super_peer_config) of the nodes that may
// serve, in serves_before order: capacity first, then a rendezvous hash
// that spreads them over the id space. A node this one has not heard
// directly (known only by gossip) never serves. The set is a function of
// the view alone, so every node with the same view picks the same set, and
// a rendezvous order is stable by construction: a node that joins below
// the cut or a normal node that dies moves no super-peer; a dead one is
// replaced by the next in order.
//
// Attachments keep history (hysteresis): a member stays with its
// super-peer while that one serves and holds at most ceil(N / count) +
// slack members. The members of a super-peer that stops serving go, as a
// group, to the one that replaces it; members without one (new, or
// orphaned by a shrinking count, or moved off an overfull super-peer) take
// the super-peer of highest rendezvous score with them that holds fewer
// than ceil(N / count); a super-peer added by a growing count draws the
// members whose best choice it has become.
//
// The super-peers depend on the view alone, so every node with the same
// view agrees on them. The attachments also depend on the views seen
// before: nodes fed the same views agree, and from no history they are a
// function of the view, but a node that started later may attach some
// members elsewhere (after a replacement, or where a super-peer filled up).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "super_peers/super_peer_config.hpp"
#include "super_peers/super_peer_rank.hpp"

namespace dice {

/// One live node of the view, as this node sees it.
struct super_peer_candidate {
  std::string id;
  /// Heard from directly (not only by gossip): reachable, so it may serve.
  bool heard_directly = false;
  super_peer_capacity capacity;
};

/// The election's outcome.
struct super_peer_assignment {
  /// The super-peers, sorted by id.
  std::vector<std::string> super_peers;
  /// Every live node's super-peer (a super-peer's is itself); empty when
  /// the election is off or no node may serve.
  std::map<std::string, std::string> attached_to;
  /// Members (other than itself) a super-peer holds at most:
  /// ceil(N / count) + slack; 0 when there are no super-peers.
  std::size_t bound = 0;

  bool is_super_peer(const std::string& id) const;
  /// The node's super-peer, or "" if it has none.
  std::string super_peer_of(const std::string& id) const;
};

class super_peer_machine {
public:
  explicit super_peer_machine(super_peer_config cfg = {});

  /// Recomputes from the live nodes (any order; a repeated id counts
  /// once, its first row). Returns the new assignment.
  const super_peer_assignment& update(std::vector<super_peer_candidate> live);

  const super_peer_assignment& current() const { return current_; }
  const super_peer_config& config() const { return cfg_; }

private:
  super_peer_config cfg_;
  super_peer_assignment current_;
};

} // namespace dice
