#include "ready_queue/claim_matching.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>

#include "ready_queue/ready_queue.hpp"

namespace dice {

std::vector<std::string>
match_claims(const std::vector<std::vector<std::string>>& classes,
             std::map<std::string, std::size_t> free_slots,
             const std::string& self) {
  std::vector<std::string> mine;
  if (classes.empty() || classes.front().empty())
    return mine;
  // The order of turns: by rendezvous hash with the first task, so the same
  // node does not always choose first; with a single task, it goes to the
  // node that ranks best for it.
  const auto& key = classes.front().front();
  std::vector<std::tuple<std::uint64_t, std::string, std::size_t>> turns;
  for (const auto& [node, n] : free_slots)
    if (n > 0)
      turns.emplace_back(rendezvous_hash(key, node), node, n);
  std::sort(turns.begin(), turns.end());
  std::set<std::string> taken; // of the current class
  std::size_t cls = 0;         // the first class with a task left
  // Rounds of one task per node with a free slot, until this node's slots
  // are filled (later turns cannot change its picks) or tasks run out.
  for (bool more = true; more;) {
    more = false;
    for (auto& [hash, node, left] : turns) {
      if (left == 0)
        continue;
      while (cls < classes.size() && taken.size() >= classes[cls].size())
        taken.clear(), ++cls; // a class used up: on to the next
      if (cls == classes.size())
        return mine;
      const std::string* best = nullptr;
      std::uint64_t best_hash = 0;
      for (const auto& t : classes[cls]) {
        if (taken.count(t) > 0)
          continue;
        auto h = rendezvous_hash(t, node);
        if (best == nullptr || h < best_hash) {
          best = &t;
          best_hash = h;
        }
      }
      taken.insert(*best);
      --left;
      if (node == self) {
        mine.push_back(*best);
        if (left == 0)
          return mine;
      }
      more = true;
    }
  }
  return mine;
}

} // namespace dice
