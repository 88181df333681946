#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ready_queue/ready_queue.hpp"

using namespace dice;

namespace {

std::string task(int i) {
  return "task-" + std::to_string(i);
}

} // namespace

TEST_CASE("FNV-1a matches the published test vectors", "[ready_queue]") {
  CHECK(fnv1a_64("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a_64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a_64("foobar") == 0x85944171f73967e8ULL);
}

TEST_CASE("the rendezvous hash depends on both ids and their boundary",
          "[ready_queue]") {
  CHECK(rendezvous_hash("t1", "n1") == rendezvous_hash("t1", "n1"));
  CHECK(rendezvous_hash("t1", "n1") != rendezvous_hash("t1", "n2"));
  CHECK(rendezvous_hash("t1", "n1") != rendezvous_hash("t2", "n1"));
  CHECK(rendezvous_hash("ab", "c") != rendezvous_hash("a", "bc"));
}

TEST_CASE("higher priority is walked first on every node", "[ready_queue]") {
  for (auto node : {"n0", "n1", "n2", "n3"}) {
    INFO(node);
    ready_queue q{node};
    for (int i = 0; i < 30; ++i)
      q.insert(task(i), i % 3); // priorities 0, 1, 2
    q.insert("urgent", 100);
    q.insert("background", -5);
    auto order = q.next(q.size());
    REQUIRE(order.size() == 32);
    CHECK(order.front() == "urgent");
    CHECK(order.back() == "background");
    CHECK(q.peek() == "urgent");
    // Ten tasks of priority 2, then ten of 1, then ten of 0.
    for (int k = 0; k < 30; ++k) {
      auto id = order[1 + k];
      auto i = std::stoi(id.substr(5));
      CHECK(i % 3 == 2 - k / 10);
    }
  }
}

TEST_CASE("different nodes walk tasks of equal priority in different orders",
          "[ready_queue]") {
  std::vector<ready_queue> nodes;
  for (int n = 0; n < 8; ++n)
    nodes.emplace_back("node-" + std::to_string(n));
  for (auto& q : nodes)
    for (int i = 0; i < 100; ++i)
      q.insert(task(i), 0);
  std::set<std::string> heads;
  std::size_t same_head_pairs = 0;
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    heads.insert(*nodes[a].peek());
    for (std::size_t b = a + 1; b < nodes.size(); ++b) {
      same_head_pairs += nodes[a].peek() == nodes[b].peek();
      CHECK(nodes[a].next(100) != nodes[b].next(100));
    }
  }
  // Uniform heads would collide in 28/100 pairs on average.
  CAPTURE(heads.size(), same_head_pairs);
  CHECK(heads.size() >= 6);
  CHECK(same_head_pairs <= 2);
}

TEST_CASE("heads rarely coincide across many task sets", "[ready_queue]") {
  // Two idle nodes pick the same head about once in `tasks` rounds.
  const int rounds = 400;
  const int tasks = 20;
  int collisions = 0;
  for (int r = 0; r < rounds; ++r) {
    ready_queue a{"alpha"};
    ready_queue b{"beta"};
    for (int i = 0; i < tasks; ++i) {
      auto id = "r" + std::to_string(r) + "-" + task(i);
      a.insert(id, 1);
      b.insert(id, 1);
    }
    collisions += a.peek() == b.peek();
  }
  CAPTURE(collisions);
  CHECK(collisions <= 2 * rounds / tasks);
}

TEST_CASE("a node's order does not depend on insertion order",
          "[ready_queue]") {
  std::uint64_t seed = 99;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<std::string> ids;
  for (int i = 0; i < 50; ++i)
    ids.push_back(task(i));
  ready_queue first{"n1"};
  for (const auto& id : ids)
    first.insert(id, static_cast<int>(id.size()) % 2);
  for (int round = 0; round < 10; ++round) {
    std::shuffle(ids.begin(), ids.end(), rng);
    ready_queue other{"n1"};
    for (const auto& id : ids)
      other.insert(id, static_cast<int>(id.size()) % 2);
    REQUIRE(other.next(50) == first.next(50));
  }
}

TEST_CASE("erase, contains and size track the ready tasks", "[ready_queue]") {
  ready_queue q{"n1"};
  CHECK(q.empty());
  CHECK(q.size() == 0);
  CHECK_FALSE(q.peek());
  CHECK(q.next(3).empty());

  q.insert("a", 1);
  q.insert("b", 2);
  q.insert("c", 3);
  CHECK(q.size() == 3);
  CHECK(q.contains("b"));
  CHECK_FALSE(q.contains("d"));
  CHECK(q.next(2) == std::vector<std::string>{"c", "b"});
  CHECK(q.next(10).size() == 3);

  CHECK(q.erase("c"));
  CHECK_FALSE(q.erase("c"));
  CHECK_FALSE(q.erase("unknown"));
  CHECK_FALSE(q.contains("c"));
  CHECK(q.size() == 2);
  CHECK(q.peek() == "b");

  SECTION("inserting a known task moves it instead of duplicating it") {
    q.insert("a", 5);
    CHECK(q.size() == 2);
    CHECK(q.peek() == "a");
    q.insert("a", 5);
    CHECK(q.next(10) == std::vector<std::string>{"a", "b"});
    CHECK(q.erase("a"));
    CHECK(q.next(10) == std::vector<std::string>{"b"});
  }
  SECTION("a copy is independent of the original") {
    auto copy = q;
    CHECK(copy.erase("b"));
    CHECK(q.contains("b"));
    CHECK(copy.next(10) == std::vector<std::string>{"a"});
    CHECK(q.next(10) == std::vector<std::string>{"b", "a"});
  }
  SECTION("emptied, it has no head") {
    CHECK(q.erase("a"));
    CHECK(q.erase("b"));
    CHECK(q.empty());
    CHECK_FALSE(q.peek());
  }
}

TEST_CASE("a re-queued task walks ahead of first attempts of its priority, "
          "never ahead of a higher priority",
          "[ready_queue]") {
  for (auto node : {"a", "b", "c", "d"}) {
    CAPTURE(node);
    ready_queue q(node);
    for (int i = 0; i < 20; ++i)
      q.insert("fresh" + std::to_string(i), 0);
    q.insert("urgent", 5);
    q.insert("recovered", 0, true);
    auto order = q.next(3);
    REQUIRE(order.size() == 3);
    CHECK(order[0] == "urgent");
    CHECK(order[1] == "recovered");
    // Without the flag it takes its hashed place, as if always fresh.
    q.insert("recovered", 0, false);
    q.erase("urgent");
    ready_queue plain(node);
    for (int i = 0; i < 20; ++i)
      plain.insert("fresh" + std::to_string(i), 0);
    plain.insert("recovered", 0);
    CHECK(q.next(21) == plain.next(21));
    CHECK(q.size() == 21);
  }
}

TEST_CASE("the common order (no node id) is first in, first out by the "
          "caller's key, after priority and retries, and tasks heard later "
          "join behind",
          "[ready_queue]") {
  ready_queue common{""};
  common.insert("late", 0, false, 30);
  common.insert("first", 0, false, 10);
  common.insert("second", 0, false, 20);
  CHECK(common.next(3) == std::vector<std::string>{"first", "second", "late"});
  // A node that has heard only part of a burst has the same head.
  ready_queue partial{""};
  partial.insert("second", 0, false, 20);
  partial.insert("first", 0, false, 10);
  CHECK(partial.next(2) == common.next(2));
  // Priority, then retries, still come first.
  common.insert("urgent", 5, false, 99);
  common.insert("retry", 0, true, 50);
  CHECK(common.next(5)
        == std::vector<std::string>{"urgent", "retry", "first", "second", "late"});
  // Re-inserted with another key, it moves.
  common.insert("first", 0, false, 40);
  CHECK(common.next(5)
        == std::vector<std::string>{"urgent", "retry", "second", "late", "first"});
  CHECK(common.erase("first"));
  CHECK(common.size() == 4);
}
