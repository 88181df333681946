#pragma once
// The hashes every node computes alike, on every platform: the rendezvous
// rank of a (task, node) pair that orders each node's walk of the ready
// queue and the claim matching (and of the super-peer election's pairs),
// and FNV-1a for digests.
#include <cstdint>
#include <string_view>

namespace dice {

/// 64-bit FNV-1a over `bytes`, continuing from `seed`.
std::uint64_t fnv1a_64(std::string_view bytes,
                       std::uint64_t seed = 0xcbf29ce484222325ULL);

/// The rank of `task_id` for `node_id`; lower walks first. Same value on
/// every platform: FNV-1a over length-prefixed bytes, then a mixing step so
/// that ids differing in one character land far apart.
std::uint64_t rendezvous_hash(std::string_view task_id,
                              std::string_view node_id);

} // namespace dice
