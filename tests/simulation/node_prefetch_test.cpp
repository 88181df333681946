// Claims ahead of execution (prefetch) on production nodes (actor_cluster):
// a prefetched task starts the moment the slot frees, and a node that dies
// holding claims it has not started yet loses none of the tasks.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "node_cases.hpp"
#include "simulation/actor_cluster.hpp"

using namespace dice;
using namespace dice::test;

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
  start_nodes(c, 1);
  submit_each(c, "n1", 3, 1000);
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
  start_nodes(c, 2);
  auto tasks = submit_each(c, "n1", 4, 3000);
  c.step(300);
  // Four seats, four claims: each node runs one and holds one ahead.
  auto rows = c.tasks_of("n1");
  REQUIRE(rows.size() == tasks.size());
  std::map<std::string, int> claims_by;
  for (const auto& row : rows) {
    CHECK(wire::TaskPhase_Name(row.state.phase()) == "RUNNING");
    ++claims_by[row.state.claim().node_id()];
  }
  REQUIRE(claims_by == std::map<std::string, int>{{"n1", 2}, {"n2", 2}});
  c.crash("n2");
  c.step(20'000);
  rows = c.tasks_of("n1");
  REQUIRE(rows.size() == tasks.size());
  for (const auto& row : rows) {
    CAPTURE(row.spec.id());
    CHECK(wire::TaskPhase_Name(row.state.phase()) == "DONE");
    CHECK(row.state.claim().node_id() == "n1");
  }
}
