#include "common/hashes.hpp"

namespace dice {

namespace {

constexpr std::uint64_t fnv_prime = 0x100000001b3ULL;

// Length prefix as 8 little-endian bytes, so ("ab","c") != ("a","bc").
std::uint64_t fnv1a_length(std::uint64_t h, std::uint64_t length) {
  for (int i = 0; i < 8; ++i) {
    h ^= (length >> (8 * i)) & 0xffU;
    h *= fnv_prime;
  }
  return h;
}

// MurmurHash3's fmix64: FNV-1a alone mixes the last bytes poorly.
std::uint64_t fmix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

} // namespace

std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= fnv_prime;
  }
  return h;
}

std::uint64_t rendezvous_hash(std::string_view task_id,
                              std::string_view node_id) {
  std::uint64_t h = fnv1a_64({});
  h = fnv1a_64(task_id, fnv1a_length(h, task_id.size()));
  h = fnv1a_64(node_id, fnv1a_length(h, node_id.size()));
  return fmix64(h);
}

bool picks_itself(std::string_view key, const std::string& self,
                  std::size_t nodes, std::size_t few) {
  if (few == 0)
    return false;
  auto u = static_cast<double>(rendezvous_hash(key, self) >> 11) * 0x1.0p-53;
  return u * static_cast<double>(nodes) < static_cast<double>(few);
}

std::size_t rendezvous_rank(std::string_view key, const std::string& self,
                            const std::vector<std::string>& nodes,
                            const std::string& skip) {
  auto mine = rendezvous_hash(key, self);
  std::size_t rank = 0;
  for (const auto& n : nodes) {
    if (n == self || n == skip)
      continue;
    auto h = rendezvous_hash(key, n);
    rank += h > mine || (h == mine && n < self);
  }
  return rank;
}

} // namespace dice
