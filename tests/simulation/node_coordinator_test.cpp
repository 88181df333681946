// The coordinator role on production nodes (actor_cluster): the elected
// coordinator recovers a dead member and announces it, the others hear
// the announcement, and the task runs again once; when the coordinator
// dies with the member, the task is still re-queued and runs again once,
// and the coordinator elected next recovers both; the coordinator becomes
// the enqueuer of record of a dead node's unfinished tasks. (What only the
// machine shows, the op log's compaction to the stable point and who
// recovers without an election, is checked in
// tests/communication/communication_machine_test.cpp.)
// (A member may also re-queue it by its RUNNING timeout, 1.6 s after the
// last heartbeat plus a jitter, which races the death verdict, 1.6 s plus
// a check interval: the same attempt, merged as one.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "node_cases.hpp"
#include "simulation/actor_cluster.hpp"

using namespace dice;
using namespace dice::test;

namespace {

// Four nodes that agree on a coordinator, and one task of a minute
// running on a member that is not the coordinator.
struct long_task_running {
  actor_cluster c{7, {}, queue_config{}};
  std::string coordinator, runner, task;

  long_task_running() {
    start_nodes(c, 4, 3000); // and elect a coordinator
    auto named = c.coordinator_of("n1");
    REQUIRE(named);
    coordinator = *named;
    auto at = coordinator == "n1" ? "n2" : "n1";
    auto s = submit_started(c, at, 60'000);
    task = s.task;
    runner = s.runner;
    // The seed makes it so: the member that dies below is not the coordinator.
    REQUIRE(runner != coordinator);
  }

  // The task's state on node `id`.
  wire::TaskState state_on(const std::string& id) {
    return row_of(c, id, task).state;
  }
};

} // namespace

TEST_CASE("on production nodes the coordinator recovers a dead member "
          "and announces it: its task runs again once",
          "[sim][node][coordinator]") {
  long_task_running f;
  f.c.crash(f.runner);
  f.c.step(8000); // declared dead, recovered, claimed again
  for (const auto& id : f.c.live_nodes()) {
    CAPTURE(id);
    auto k = f.c.counters_of(id);
    bool coord = id == f.coordinator;
    CHECK(k.recoveries == (coord ? 1u : 0u));
    CHECK(k.recoveries_heard == (coord ? 0u : 1u));
    if (coord)
      CHECK(k.requeues == 1);
    CHECK(f.state_on(id).attempt() == 2);
  }
  auto again = runs_of(f.c, f.task, 2);
  REQUIRE(again.size() == 1);
  CHECK(again[0].node != f.runner);
}

TEST_CASE("on production nodes a task whose member and coordinator die "
          "together is still re-queued once and runs again",
          "[sim][node][coordinator]") {
  long_task_running f;
  f.c.crash(f.runner);
  f.c.crash(f.coordinator);
  f.c.step(10000);
  auto live = f.c.live_nodes();
  REQUIRE(live.size() == 2);
  for (const auto& id : live) {
    CAPTURE(id);
    CHECK(f.state_on(id).attempt() == 2);
    CHECK(f.state_on(id).phase() == wire::RUNNING);
    // A survivor coordinates now.
    auto named = f.c.coordinator_of(id);
    REQUIRE(named);
    CHECK(std::find(live.begin(), live.end(), *named) != live.end());
  }
  auto again = runs_of(f.c, f.task, 2);
  REQUIRE(again.size() == 1);
  CHECK(std::find(live.begin(), live.end(), again[0].node) != live.end());
}

TEST_CASE("on production nodes the coordinator elected after the old one "
          "died with a member recovers both, since nobody announced them",
          "[sim][node][coordinator]") {
  long_task_running f;
  f.c.crash(f.runner);
  f.c.crash(f.coordinator); // dies before it can announce anything
  f.c.step(10000);
  auto live = f.c.live_nodes();
  REQUIRE(live.size() == 2);
  auto next = f.c.coordinator_of(live[0]);
  REQUIRE(next);
  for (const auto& id : live) {
    CAPTURE(id);
    auto k = f.c.counters_of(id);
    bool coord = id == *next;
    CHECK(k.recoveries == (coord ? 2u : 0u));
    CHECK(k.recoveries_heard == (coord ? 0u : 2u));
    CHECK(f.state_on(id).attempt() == 2);
  }
}

TEST_CASE("on production nodes the coordinator becomes the enqueuer of "
          "record of a dead node's unfinished tasks, not of its finished ones",
          "[sim][node][coordinator]") {
  actor_cluster c{7, {}, queue_config{}};
  start_nodes(c, 4, 3000);
  auto coordinator = c.coordinator_of("n1");
  REQUIRE(coordinator);
  auto enqueuer = *coordinator == "n2" ? "n3" : "n2";
  auto done = c.submit(enqueuer, 50);
  REQUIRE(done);
  c.step(500);
  auto open = c.submit(enqueuer, 60'000);
  REQUIRE(open);
  c.crash(enqueuer);
  c.step(8000);
  CHECK(c.counters_of(*coordinator).adopted == 1);
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    for (const auto& row : c.tasks_of(id)) {
      if (row.spec.id() == *open) {
        CHECK(row.owner == *coordinator);
      } else {
        CHECK(row.state.phase() == wire::DONE);
        CHECK(row.owner == enqueuer); // finished: nothing to answer for
      }
    }
    CHECK(c.tasks_of(id).size() == 2);
  }
}
