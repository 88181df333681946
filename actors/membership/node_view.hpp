#pragma once
// What membership reports about nodes: plain values, no wire types.
#include <cstdint>
#include <string>

#include "common/time.hpp"

namespace dice {

/// A node's liveness as seen locally. Only escalates by silence (alive ->
/// suspect -> dead); a suspect comes back on a live peer's word that it
/// heard the node lately, a dead one only by a message from itself.
enum class peer_state { alive, suspect, dead };

/// "alive", "suspect" or "dead".
const char* to_string(peer_state state);

/// One row of the membership view.
struct node_view {
  std::string id;
  std::string addr;
  peer_state state = peer_state::alive;
  std::uint64_t incarnation = 0;
  /// Ms since its last sign of life: heard from itself, or from a live
  /// peer that heard it (0 for self). A peer learnt by gossip counts from
  /// when we learnt it: its grace period.
  millis last_seen_ms = 0;
  /// The super-peer election (--super-peers): whether the node is one, and
  /// the super-peer it is attached to ("" when the election is off or the
  /// node is dead).
  bool super_peer = false;
  std::string attached_to{};
};

/// A change in the view, for the caller to log and to tell other actors.
struct peer_change {
  std::string id;
  std::string addr;
  /// A node new to the table counts as coming from dead.
  peer_state from = peer_state::dead;
  peer_state to = peer_state::alive;
  std::uint64_t incarnation = 0;
  /// First time in the table (or again after being forgotten).
  bool joined = false;
  /// A new incarnation: whatever the old one was doing is lost.
  bool restarted = false;
  /// Removed from the table after being dead for forget_dead_after_ms.
  bool forgotten = false;
};

} // namespace dice
