#pragma once
// How many super-peers a cluster elects (seed 001, "large-scale election":
// a defined proportion of super-peers to nodes, each serving at most a
// fixed number of normal nodes): dice-node's --super-peers auto|off|N.
#include <cstddef>
#include <string>

namespace dice {

enum class super_peer_mode { off, automatic, fixed };

struct super_peer_config {
  /// Off by default: relays pay off where a sender's N-1 unicasts are the
  /// cost (many nodes, no multicast); on a few nodes they only add a hop.
  super_peer_mode mode = super_peer_mode::off;
  /// super_peer_mode::fixed: the count (at least 1).
  std::size_t count = 0;
  /// Members a super-peer may hold beyond the even share ceil(N / count)
  /// before some are moved. A node leaving lowers the share by at most
  /// one, so with 2 a single change never evicts a member that was placed
  /// within the share.
  std::size_t slack = 2;

  /// Super-peers wanted among `live` nodes, before bounding by the nodes
  /// that may serve: 0 (off), ceil(sqrt(live)) (auto) or the count.
  std::size_t wanted(std::size_t live) const;
};

/// "auto", "off" or a count 1..65535; throws std::invalid_argument with a
/// one-line reason naming the option otherwise.
super_peer_config parse_super_peers(const std::string& text);

/// "off", "auto" or the count: what parse_super_peers takes back.
std::string to_string(const super_peer_config& cfg);

} // namespace dice
