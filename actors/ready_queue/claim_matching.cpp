#include "ready_queue/claim_matching.hpp"

#include "ready_queue/ready_queue.hpp"

namespace dice {

std::vector<std::string>
match_claims(const std::vector<std::string>& tasks,
             std::map<std::string, std::size_t> free_slots,
             const std::string& self) {
  std::vector<std::string> mine;
  for (auto i = free_slots.begin(); i != free_slots.end();)
    i = i->second == 0 ? free_slots.erase(i) : std::next(i);
  for (const auto& task : tasks) {
    if (free_slots.count(self) == 0)
      break; // the rest of the matching does not concern this node
    auto best = free_slots.begin();
    auto best_hash = rendezvous_hash(task, best->first);
    for (auto i = std::next(best); i != free_slots.end(); ++i) {
      auto h = rendezvous_hash(task, i->first);
      if (h < best_hash) {
        best = i;
        best_hash = h;
      }
    }
    if (best->first == self)
      mine.push_back(task);
    if (--best->second == 0)
      free_slots.erase(best);
  }
  return mine;
}

} // namespace dice
