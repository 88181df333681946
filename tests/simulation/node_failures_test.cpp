// What a user sees of removes, cancels and executors that die, on
// production nodes (actor_cluster): the same cases the lockstep tests of
// tests/queue/queue_failures_test.cpp drive through the machines.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "simulation/actor_cluster.hpp"

using namespace dice;

namespace {

// Three nodes; a task of `task_ms` submitted at n1 and started somewhere.
struct one_task_running {
  actor_cluster c{5, {}, queue_config{}};
  std::string task, runner;

  explicit one_task_running(millis task_ms) {
    for (const auto* id : {"n1", "n2", "n3"})
      c.start(id);
    c.step(1500);
    auto id = c.submit("n1", task_ms);
    REQUIRE(id);
    task = *id;
    c.step(500);
    auto runs = runs_of_task();
    REQUIRE(runs.size() == 1);
    runner = runs[0].node;
  }

  std::vector<sim_run> runs_of_task() const {
    std::vector<sim_run> out;
    for (const auto& r : c.runs())
      if (r.task_id == task)
        out.push_back(r);
    return out;
  }

  // The task's phase on every live node.
  std::vector<std::string> phases() {
    std::vector<std::string> out;
    for (const auto& id : c.live_nodes())
      for (const auto& row : c.tasks_of(id))
        if (row.spec.id() == task)
          out.push_back(wire::TaskPhase_Name(row.state.phase()));
    return out;
  }
};

} // namespace

TEST_CASE("on production nodes removeByID tops everything: the running "
          "execution stops and the task ends REMOVED everywhere",
          "[sim][node][failures]") {
  one_task_running f(3000);
  REQUIRE(f.c.remove("n3", f.task));
  f.c.step(4000);
  auto runs = f.runs_of_task();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].end >= 0);
  CHECK_FALSE(runs[0].ok); // stopped, not finished
  CHECK(f.phases() == std::vector<std::string>(3, "REMOVED"));
  CHECK_FALSE(f.c.remove("n1", f.task));
}

TEST_CASE("on production nodes a user's cancel ends a running task "
          "CANCELED everywhere", "[sim][node][failures]") {
  one_task_running f(3000);
  REQUIRE(f.c.cancel("n3", f.task));
  f.c.step(4000);
  auto runs = f.runs_of_task();
  REQUIRE(runs.size() == 1);
  CHECK_FALSE(runs[0].ok);
  CHECK(f.phases() == std::vector<std::string>(3, "CANCELED"));
  CHECK_FALSE(f.c.cancel("n1", f.task));
}

TEST_CASE("on production nodes a removed task that has not started yet "
          "never runs", "[sim][node][failures]") {
  actor_cluster c(5, {}, queue_config{});
  for (const auto* id : {"n1", "n2", "n3"})
    c.start(id);
  c.step(1500);
  wire::TaskSpec spec;
  spec.set_kind("sleep");
  spec.set_payload("10");
  spec.set_not_before_ms(c.now() + 1000); // READY, not claimable for 1 s
  auto id = c.submit("n1", spec);
  REQUIRE(id);
  REQUIRE(c.remove("n2", *id));
  c.step(3000);
  CHECK(c.executions().count(*id) == 0);
  for (const auto& n : c.live_nodes())
    for (const auto& row : c.tasks_of(n))
      if (row.spec.id() == *id)
        CHECK(wire::TaskPhase_Name(row.state.phase()) == "REMOVED");
}

TEST_CASE("on production nodes a task whose executor dies runs again "
          "elsewhere, attempt 2, and ends DONE", "[sim][node][failures]") {
  one_task_running f(1000);
  f.c.crash(f.runner);
  f.c.step(6000);
  auto runs = f.runs_of_task();
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].attempt == 2);
  CHECK(runs[1].node != f.runner);
  CHECK(runs[1].ok);
  CHECK(f.phases() == std::vector<std::string>(2, "DONE"));
}

TEST_CASE("on production nodes the claim a node's previous incarnation left "
          "is re-queued when the node restarts at once, and the task runs "
          "again", "[sim][node][failures]") {
  one_task_running f(10'000);
  f.c.crash(f.runner);
  f.c.restart(f.runner); // empty replica; nobody noticed the crash yet
  f.c.step(14'000);
  // Who re-queues it is a race (the restarted node finding its stale
  // claim, a peer hearing the new incarnation); that one does is not.
  std::uint64_t requeues = 0;
  for (const auto& id : f.c.live_nodes())
    requeues += f.c.counters_of(id).requeues;
  CHECK(requeues >= 1);
  auto runs = f.runs_of_task();
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].attempt == 2);
  CHECK(runs[1].ok);
  CHECK(f.phases() == std::vector<std::string>(3, "DONE"));
}
