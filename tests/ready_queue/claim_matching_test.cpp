#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ready_queue/claim_matching.hpp"
#include "ready_queue/ready_queue.hpp"

using namespace dice;

namespace {

std::vector<std::string> ids(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back(prefix + std::to_string(i));
  return out;
}

std::map<std::string, std::size_t>
one_slot_each(const std::vector<std::string>& nodes) {
  std::map<std::string, std::size_t> free;
  for (const auto& n : nodes)
    free[n] = 1;
  return free;
}

// What each node claims when all of them see `classes` and `free_slots`.
std::map<std::string, std::vector<std::string>>
everyone(const std::vector<std::vector<std::string>>& classes,
         const std::map<std::string, std::size_t>& free_slots) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [node, n] : free_slots)
    out[node] = match_claims(classes, free_slots, node);
  return out;
}

} // namespace

TEST_CASE("nodes that agree on the view claim disjoint tasks, as many as "
          "there are free slots",
          "[ready_queue]") {
  auto [tasks, nodes, slots] = GENERATE(table<int, int, std::size_t>(
    {{40, 32, 1}, {32, 32, 1}, {5, 32, 1}, {100, 8, 3}, {0, 4, 1}}));
  CAPTURE(tasks, nodes, slots);
  auto task_ids = ids("task-", tasks);
  std::map<std::string, std::size_t> free;
  for (const auto& n : ids("node-", nodes))
    free[n] = slots;
  std::set<std::string> claimed;
  std::size_t total = 0;
  for (const auto& [node, mine] : everyone({task_ids}, free)) {
    CHECK(mine.size() <= slots);
    total += mine.size();
    claimed.insert(mine.begin(), mine.end());
  }
  auto seats = static_cast<std::size_t>(nodes) * slots;
  auto expected = std::min(static_cast<std::size_t>(tasks), seats);
  CHECK(total == expected);          // every free slot or every task used
  CHECK(claimed.size() == expected); // no task claimed twice
}

TEST_CASE("the matching takes every task of a class before any of the "
          "next",
          "[ready_queue]") {
  std::vector<std::vector<std::string>> classes{ids("urgent-", 3),
                                                ids("later-", 10)};
  auto free = one_slot_each(ids("node-", 5));
  std::set<std::string> claimed;
  for (const auto& [node, mine] : everyone(classes, free))
    claimed.insert(mine.begin(), mine.end());
  CHECK(claimed.size() == 5);
  for (const auto& t : classes[0])
    CHECK(claimed.count(t) == 1);
}

TEST_CASE("a node that sees no other free node takes its own favourite "
          "task, so two such nodes rarely collide",
          "[ready_queue]") {
  auto task_ids = ids("t", 50);
  for (const std::string node : {"a", "b", "c"}) {
    auto mine = match_claims({task_ids}, {{node, 1}}, node);
    REQUIRE(mine.size() == 1);
    auto favourite = *std::min_element(
      task_ids.begin(), task_ids.end(), [&](const auto& x, const auto& y) {
        return rendezvous_hash(x, node) < rendezvous_hash(y, node);
      });
    CHECK(mine.front() == favourite);
  }
}

TEST_CASE("a node that claimed drops out of everyone's matching without "
          "moving anyone else's task",
          "[ready_queue]") {
  auto task_ids = ids("t", 20);
  auto free = one_slot_each(ids("n", 12));
  auto before = everyone({task_ids}, free);
  // n3 claims its task: the others see it busy and the task gone.
  auto taken = before.at("n3").at(0);
  free.erase("n3");
  task_ids.erase(std::find(task_ids.begin(), task_ids.end(), taken));
  auto after = everyone({task_ids}, free);
  for (const auto& [node, mine] : after) {
    CAPTURE(node);
    CHECK(mine == before.at(node));
  }
}

TEST_CASE("claims of the first tasks in the order move nobody else's "
          "task either (nodes that see a claim late match alike)",
          "[ready_queue]") {
  auto task_ids = ids("t", 20);
  auto free = one_slot_each(ids("n", 12));
  auto before = everyone({task_ids}, free);
  // Whoever took the head of the order, and the next head, claim: the
  // others see both busy and both tasks gone.
  for (int k = 0; k < 2; ++k) {
    auto head = task_ids.front();
    auto it = std::find_if(before.begin(), before.end(), [&](const auto& x) {
      return !x.second.empty() && x.second.front() == head;
    });
    if (it != before.end())
      free.erase(it->first);
    task_ids.erase(task_ids.begin());
  }
  auto after = everyone({task_ids}, free);
  for (const auto& [node, mine] : after) {
    CAPTURE(node);
    CHECK(mine == before.at(node));
  }
}

TEST_CASE("a node with no free slot in the view gets nothing",
          "[ready_queue]") {
  std::map<std::string, std::size_t> free{{"a", 0}, {"b", 1}};
  CHECK(match_claims({{"t1", "t2"}}, free, "a").empty());
  CHECK(match_claims({{"t1", "t2"}}, free, "b").size() == 1);
}

TEST_CASE("free slots are matched before prefetch seats: no task waits behind "
          "a running one while a slot elsewhere is idle",
          "[claim_matching]") {
  // a: two free slots and a free prefetch seat; b: slots busy, its
  // prefetch seat free.
  std::map<std::string, std::size_t> slots{{"a", 2}};
  std::map<std::string, std::size_t> ahead{{"a", 1}, {"b", 1}};
  std::vector<std::vector<std::string>> two{{"t1", "t2"}};
  CHECK(match_seats(two, slots, ahead, "a").size() == 2);
  CHECK(match_seats(two, slots, ahead, "b").empty());
  // More tasks than slots: the rest go to prefetch seats, one each, and
  // no task twice.
  std::vector<std::vector<std::string>> four{{"t1", "t2", "t3", "t4"}};
  auto a = match_seats(four, slots, ahead, "a");
  auto b = match_seats(four, slots, ahead, "b");
  CHECK(a.size() == 3);
  CHECK(b.size() == 1);
  std::set<std::string> all(a.begin(), a.end());
  all.insert(b.begin(), b.end());
  CHECK(all.size() == 4);
}

TEST_CASE("a node with a free slot is matched its own first-attempt tasks "
          "of the first class first, and every node agrees",
          "[claim_matching]") {
  auto nodes = ids("n", 8);
  auto free = one_slot_each(nodes);
  std::map<std::string, std::size_t> none;
  auto task_ids = ids("t", 12);
  // n5 submitted t7 and t9, n2 submitted t3; n5 has one free slot.
  task_owners owners{{"t7", "n5"}, {"t9", "n5"}, {"t3", "n2"}};
  std::set<std::string> all;
  std::size_t total = 0;
  for (const auto& n : nodes) {
    auto mine = match_seats({task_ids}, free, none, n, owners);
    CAPTURE(n);
    CHECK(mine.size() == 1);
    if (n == "n5")
      CHECK(mine == std::vector<std::string>{"t7"}); // the first of its own
    if (n == "n2")
      CHECK(mine == std::vector<std::string>{"t3"});
    total += mine.size();
    all.insert(mine.begin(), mine.end());
  }
  CHECK(total == nodes.size());
  CHECK(all.size() == nodes.size()); // no task twice
  // Its own task of a later class waits: a better class goes first.
  std::vector<std::vector<std::string>> classes{{"urgent"}, {"t7"}};
  std::map<std::string, std::size_t> n5_alone{{"n5", 1}};
  CHECK(match_seats(classes, n5_alone, none, "n5", owners)
        == std::vector<std::string>{"urgent"});
  // An owner with no free slot in the view takes nothing first: its task
  // goes round like any other.
  free.erase("n5");
  std::set<std::string> taken;
  for (const auto& n : nodes)
    if (n != "n5")
      for (const auto& t : match_seats({task_ids}, free, none, n, owners))
        taken.insert(t);
  CHECK(taken.size() == nodes.size() - 1);
  CHECK(taken.count("t3") == 1); // n2's own, n2 being free
}
