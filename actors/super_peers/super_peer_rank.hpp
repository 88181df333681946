#pragma once
// The orders the super-peer election uses, alike on every node and
// platform: which nodes serve first (capacity, then a rendezvous hash that
// spreads the choice over the id space) and which super-peer a member
// prefers (a rendezvous hash of the pair, common/hashes.hpp's).
#include <cstdint>
#include <string>
#include <string_view>

namespace dice {

/// What a node's heartbeat advertises about it, as the election weighs it.
struct super_peer_capacity {
  std::uint32_t slots = 0;
  std::uint32_t battery = 0;      // 0..100
  std::uint32_t device_class = 0; // lower is preferred

  bool operator==(const super_peer_capacity& o) const {
    return slots == o.slots && battery == o.battery
           && device_class == o.device_class;
  }
};

/// A platform-stable 64-bit rendezvous score of the pair (a, b); higher
/// wins: rendezvous_hash(a, b).
std::uint64_t super_peer_score(std::string_view a, std::string_view b);

/// True if node `a` (with `ca`) serves before node `b` (with `cb`): more
/// slots, then a higher battery quartile (so a draining battery does not
/// reorder nodes at every percent), then a lower device class, then the
/// higher rendezvous score, then the lower id. A total order.
bool serves_before(const std::string& a, const super_peer_capacity& ca,
                   const std::string& b, const super_peer_capacity& cb);

} // namespace dice
