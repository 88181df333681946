// Claims ahead of execution (prefetch) on production nodes (actor_cluster),
// the cases tests/queue/prefetch_test.cpp drives through the machines: a
// prefetched task starts the moment the slot frees, and a node that dies
// holding claims it has not started yet loses none of the tasks.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "simulation/actor_cluster.hpp"

using namespace dice;

namespace {

queue_config one_slot_one_ahead() {
  queue_config q;
  q.slots = 1;
  q.prefetch = 1;
  return q;
}

} // namespace

TEST_CASE("on production nodes a task claimed ahead starts the moment the "
          "slot frees", "[sim][node][prefetch]") {
  actor_cluster c(3, {}, one_slot_one_ahead());
  c.start("n1");
  c.step(1500);
  for (int i = 0; i < 3; ++i)
    REQUIRE(c.submit("n1", 1000));
  c.step(4000);
  const auto& runs = c.runs();
  REQUIRE(runs.size() == 3);
  for (std::size_t i = 1; i < runs.size(); ++i) {
    CAPTURE(i);
    CHECK(runs[i].start == runs[i - 1].end);
  }
  CHECK(c.counters_of("n1").claims == 3);
}

TEST_CASE("on production nodes a node that dies holding a claim it has not "
          "started yet loses no task: every one ends DONE elsewhere",
          "[sim][node][prefetch]") {
  actor_cluster c(3, {}, one_slot_one_ahead());
  c.start("n1");
  c.start("n2");
  c.step(1500);
  std::vector<std::string> tasks;
  for (int i = 0; i < 4; ++i) {
    auto id = c.submit("n1", 3000);
    REQUIRE(id);
    tasks.push_back(*id);
  }
  c.step(300);
  // Four seats, four claims: each node runs one and holds one ahead.
  std::map<std::string, int> claims_by;
  for (const auto& row : c.tasks_of("n1")) {
    CHECK(wire::TaskPhase_Name(row.state.phase()) == "RUNNING");
    ++claims_by[row.state.claim().node_id()];
  }
  REQUIRE(claims_by == std::map<std::string, int>{{"n1", 2}, {"n2", 2}});
  c.crash("n2");
  c.step(20'000);
  for (const auto& row : c.tasks_of("n1")) {
    CAPTURE(row.spec.id());
    CHECK(wire::TaskPhase_Name(row.state.phase()) == "DONE");
    CHECK(row.state.claim().node_id() == "n1");
  }
  CHECK(c.tasks_of("n1").size() == tasks.size());
}
