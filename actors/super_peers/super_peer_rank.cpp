#include "super_peers/super_peer_rank.hpp"

#include <tuple>

#include "common/hashes.hpp"

namespace dice {

namespace {

/// What "serves first" compares before the hash; larger is better.
auto weight(const super_peer_capacity& c) {
  return std::make_tuple(c.slots, c.battery / 25, -static_cast<std::int64_t>(c.device_class));
}

/// The id's own score: which node of equal capacity serves first.
std::uint64_t serving_score(const std::string& id) {
  return super_peer_score("super-peer", id);
}

} // namespace

std::uint64_t super_peer_score(std::string_view a, std::string_view b) {
  return rendezvous_hash(a, b);
}

bool serves_before(const std::string& a, const super_peer_capacity& ca,
                   const std::string& b, const super_peer_capacity& cb) {
  auto wa = weight(ca), wb = weight(cb);
  if (wa != wb)
    return wa > wb;
  auto sa = serving_score(a), sb = serving_score(b);
  if (sa != sb)
    return sa > sb;
  return a < b;
}

} // namespace dice
