#include "ready_queue/claim_matching.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>

#include "ready_queue/ready_queue.hpp"

namespace dice {

namespace {

// The order of turns: by rendezvous hash with a fixed key. Keyed by a
// task, it would change when that task is claimed, and the nodes that see
// the claim would match everything anew, against the others' picks.
std::uint64_t turn_rank(const std::string& node) {
  static const std::string key = "turns";
  return rendezvous_hash(key, node);
}

// The matching itself: every pick of every node, or, with `self` set, only
// until that node's slots are filled (later turns cannot change its picks).
std::map<std::string, std::vector<std::string>>
assign(const std::vector<std::vector<std::string>>& classes,
       const std::map<std::string, std::size_t>& free_slots,
       const std::string* self, const task_owners& owners = {}) {
  std::map<std::string, std::vector<std::string>> picks;
  if (classes.empty())
    return picks;
  std::vector<std::tuple<std::uint64_t, std::string, std::size_t>> turns;
  for (const auto& [node, n] : free_slots)
    if (n > 0)
      turns.emplace_back(turn_rank(node), node, n);
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
  // Each enqueuer's own tasks of the first class first, into its free
  // slots: it claimed them as it submitted them. Not of a later class: a
  // task of a better class must not wait while its slot runs one of these.
  if (!owners.empty()) {
    std::map<std::string, std::size_t*> left_of;
    for (auto& [hash, node, left] : turns)
      left_of[node] = &left;
    for (std::size_t t = 0; t < classes[0].size(); ++t) {
      auto o = owners.find(classes[0][t]);
      if (o == owners.end())
        continue;
      auto l = left_of.find(o->second);
      if (l == left_of.end() || *l->second == 0)
        continue;
      taken[t] = 1;
      --left_in_class;
      --*l->second;
      picks[o->second].push_back(classes[0][t]);
    }
  }
  // Rounds of one task per node with a free slot, until the slots are
  // filled or tasks run out.
  for (bool more = true; more;) {
    more = false;
    for (auto& [hash, node, left] : turns) {
      if (left == 0)
        continue;
      while (cls < classes.size() && left_in_class == 0)
        enter(cls + 1); // a class used up: on to the next
      if (cls == classes.size())
        return picks;
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
      picks[node].push_back(tasks[best]);
      if (self != nullptr && node == *self && left == 0)
        return picks;
      more = true;
    }
  }
  return picks;
}

} // namespace

std::vector<std::string> in_turn_order(std::vector<std::string> nodes) {
  std::vector<std::pair<std::uint64_t, std::string>> ranked;
  ranked.reserve(nodes.size());
  for (auto& n : nodes)
    ranked.emplace_back(turn_rank(n), std::move(n));
  std::sort(ranked.begin(), ranked.end());
  nodes.clear();
  for (auto& r : ranked)
    nodes.push_back(std::move(r.second));
  return nodes;
}

std::vector<std::string>
match_claims(const std::vector<std::vector<std::string>>& classes,
             std::map<std::string, std::size_t> free_slots,
             const std::string& self) {
  return std::move(assign(classes, free_slots, &self)[self]);
}

std::vector<std::string>
match_seats(std::vector<std::vector<std::string>> classes,
            const std::map<std::string, std::size_t>& free_slots,
            const std::map<std::string, std::size_t>& free_prefetch,
            const std::string& self, const task_owners& owners) {
  // Slots first, every node's: a task must not wait behind another's
  // running task while a slot elsewhere is idle.
  auto first = assign(classes, free_slots, nullptr, owners);
  auto mine = std::move(first[self]);
  if (auto p = free_prefetch.find(self); p == free_prefetch.end() || p->second == 0)
    return mine; // no prefetch seat here: the rest cannot be this node's
  std::set<std::string> used;
  for (const auto& [node, tasks] : first)
    used.insert(tasks.begin(), tasks.end());
  used.insert(mine.begin(), mine.end());
  // What the slots left, moved rather than copied.
  std::vector<std::vector<std::string>> rest;
  for (auto& c : classes) {
    c.erase(std::remove_if(c.begin(), c.end(),
                           [&](const std::string& t) { return used.count(t) > 0; }),
            c.end());
    if (!c.empty())
      rest.push_back(std::move(c));
  }
  auto ahead = match_claims(rest, free_prefetch, self);
  mine.insert(mine.end(), ahead.begin(), ahead.end());
  return mine;
}

} // namespace dice
