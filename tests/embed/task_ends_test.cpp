#include <catch2/catch.hpp>

#include <algorithm>

#include "embed/task_ends.hpp"

using namespace dice::embed;

namespace {

task_event event(const std::string& id, const std::string& state) {
  task_event ev;
  ev.id = id;
  ev.state = state;
  return ev;
}

} // namespace

TEST_CASE("an await is answered by the end, whether it waited before or came after", "[embed]") {
  task_ends ends;
  auto t1 = ends.wait("a", 7);
  auto t2 = ends.wait("a", 8);
  REQUIRE(t1);
  REQUIRE(t2);
  CHECK(ends.learn(event("a", "running")).empty()); // not an end
  CHECK_FALSE(ends.end_of("a"));
  auto answered = ends.learn(event("a", "done"));
  CHECK(answered == std::vector<task_ends::ticket>{*t1, *t2});
  CHECK(ends.waiting() == 0);
  // After the end: known at once, no wait needed.
  REQUIRE(ends.end_of("a"));
  CHECK(ends.end_of("a")->state == "done");
  // A later end replaces it.
  ends.learn(event("a", "removed"));
  CHECK(ends.end_of("a")->state == "removed");
  CHECK(ends.remembered() == 1);
}

TEST_CASE("the waits of an owner that stopped are dropped, the others stay", "[embed]") {
  task_ends ends;
  auto mine = ends.wait("a", 1);
  auto also_mine = ends.wait("b", 1);
  auto theirs = ends.wait("a", 2);
  auto dropped = ends.drop(1);
  std::sort(dropped.begin(), dropped.end());
  CHECK(dropped == std::vector<task_ends::ticket>{*mine, *also_mine});
  CHECK(ends.drop(1).empty());
  CHECK(ends.learn(event("b", "failed")).empty());
  CHECK(ends.learn(event("a", "canceled")) == std::vector<task_ends::ticket>{*theirs});
}

TEST_CASE("ends remembered and waits held are bounded", "[embed]") {
  task_ends ends(2, 3);
  ends.learn(event("a", "done"));
  ends.learn(event("b", "done"));
  ends.learn(event("c", "expired"));
  CHECK(ends.remembered() == 2);
  CHECK_FALSE(ends.end_of("a")); // the oldest forgotten
  CHECK(ends.end_of("c")->state == "expired");
  CHECK(ends.wait("x", 1));
  CHECK(ends.wait("y", 1));
  CHECK(ends.wait("z", 2));
  CHECK_FALSE(ends.wait("w", 2)); // the limit: refused, not queued
  CHECK(ends.clear().size() == 3);
  CHECK(ends.waiting() == 0);
  CHECK(ends.wait("w", 2));
}
