#include "super_peers/super_peer_rank.hpp"

#include <tuple>

namespace dice {

namespace {

constexpr std::uint64_t fnv_offset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t fnv_prime = 0x100000001b3ULL;

// Length prefix, so ("ab","c") and ("a","bc") differ.
std::uint64_t absorb(std::uint64_t h, std::string_view bytes) {
  auto length = static_cast<std::uint64_t>(bytes.size());
  for (int i = 0; i < 8; ++i) {
    h ^= (length >> (8 * i)) & 0xffU;
    h *= fnv_prime;
  }
  for (unsigned char c : bytes) {
    h ^= c;
    h *= fnv_prime;
  }
  return h;
}

// FNV-1a alone mixes the last bytes poorly: ids "n1".."n9" would cluster.
std::uint64_t fmix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

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
  return fmix64(absorb(absorb(fnv_offset, a), b));
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
