#pragma once
// The hashes every node computes alike, on every platform: the rendezvous
// rank of a (task, node) pair that orders each node's walk of the ready
// queue and the claim matching (and of the super-peer election's pairs),
// and FNV-1a for digests.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dice {

/// 64-bit FNV-1a over `bytes`, continuing from `seed`.
std::uint64_t fnv1a_64(std::string_view bytes,
                       std::uint64_t seed = 0xcbf29ce484222325ULL);

/// The rank of `task_id` for `node_id`; lower walks first. Same value on
/// every platform: FNV-1a over length-prefixed bytes, then a mixing step so
/// that ids differing in one character land far apart.
std::uint64_t rendezvous_hash(std::string_view task_id,
                              std::string_view node_id);

/// Whether `self` is one of about `few` of `nodes` nodes that pick
/// themselves for `key`, each from its own hash alone (no view to agree
/// on): the few that back up a message whose one sender may not get
/// through.
bool picks_itself(std::string_view key, const std::string& self,
                  std::size_t nodes, std::size_t few);

/// How many of `nodes` (but `self` and `skip`) come before `self` for
/// `key`: a higher rendezvous_hash first, ties to the smaller id. Nodes
/// that agree on the list agree on every rank, with no message.
std::size_t rendezvous_rank(std::string_view key, const std::string& self,
                            const std::vector<std::string>& nodes,
                            const std::string& skip = {});

} // namespace dice
