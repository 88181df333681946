#include "ready_queue/claim_matching.hpp"

#include <algorithm>
#include <cstdint>
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
  // The order of turns: by rendezvous hash with a fixed key. Keyed by a
  // task, it would change when that task is claimed, and the nodes that
  // see the claim would match everything anew, against the others' picks.
  static const std::string key = "turns";
  std::vector<std::tuple<std::uint64_t, std::string, std::size_t>> turns;
  for (const auto& [node, n] : free_slots)
    if (n > 0)
      turns.emplace_back(rendezvous_hash(key, node), node, n);
  std::sort(turns.begin(), turns.end());
  std::vector<char> taken; // of the current class, by index
  std::size_t left_in_class = 0;
  std::size_t cls = 0; // the first class with a task left
  auto enter = [&](std::size_t c) {
    cls = c;
    if (cls < classes.size()) {
      taken.assign(classes[cls].size(), 0);
      left_in_class = classes[cls].size();
    }
  };
  enter(0);
  // Rounds of one task per node with a free slot, until this node's slots
  // are filled (later turns cannot change its picks) or tasks run out.
  for (bool more = true; more;) {
    more = false;
    for (auto& [hash, node, left] : turns) {
      if (left == 0)
        continue;
      while (cls < classes.size() && left_in_class == 0)
        enter(cls + 1); // a class used up: on to the next
      if (cls == classes.size())
        return mine;
      const auto& tasks = classes[cls];
      std::size_t best = tasks.size();
      std::uint64_t best_hash = 0;
      for (std::size_t t = 0; t < tasks.size(); ++t) {
        if (taken[t])
          continue;
        auto h = rendezvous_hash(tasks[t], node);
        if (best == tasks.size() || h < best_hash) {
          best = t;
          best_hash = h;
        }
      }
      taken[best] = 1;
      --left_in_class;
      --left;
      if (node == self) {
        mine.push_back(tasks[best]);
        if (left == 0)
          return mine;
      }
      more = true;
    }
  }
  return mine;
}

} // namespace dice
