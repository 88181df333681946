// What a user sees of removes, cancels, failed executions and executors
// that die or go silent, on production nodes (actor_cluster).
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "node_cases.hpp"
#include "simulation/actor_cluster.hpp"
#include "vocabulary/queue_messages.hpp"

using namespace dice;
using namespace dice::test;

namespace {

// Three nodes; a task of `task_ms` submitted at n1 and started somewhere.
struct one_task_running {
  actor_cluster c{5, {}, queue_config{}};
  std::string task, runner;

  explicit one_task_running(millis task_ms) {
    start_nodes(c, 3);
    auto s = submit_started(c, "n1", task_ms);
    task = s.task;
    runner = s.runner;
  }

  // The task's phase on every live node that holds it.
  std::vector<std::string> phases() {
    std::vector<std::string> out;
    for (const auto& id : c.live_nodes())
      if (auto row = find_row(c, id, task))
        out.push_back(wire::TaskPhase_Name(row->state.phase()));
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
  auto runs = runs_of(f.c, f.task);
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
  auto runs = runs_of(f.c, f.task);
  REQUIRE(runs.size() == 1);
  CHECK_FALSE(runs[0].ok);
  CHECK(f.phases() == std::vector<std::string>(3, "CANCELED"));
  CHECK_FALSE(f.c.cancel("n1", f.task));
}

TEST_CASE("on production nodes a removed task that has not started yet "
          "never runs", "[sim][node][failures]") {
  actor_cluster c(5, {}, queue_config{});
  start_nodes(c, 3);
  auto spec = sleep_task(10);
  spec.set_not_before_ms(c.now() + 1000); // READY, not claimable for 1 s
  auto id = c.submit("n1", spec);
  REQUIRE(id);
  REQUIRE(c.remove("n2", *id));
  c.step(3000);
  CHECK(c.executions().count(*id) == 0);
  for (const auto& n : c.live_nodes())
    if (auto row = find_row(c, n, *id))
      CHECK(wire::TaskPhase_Name(row->state.phase()) == "REMOVED");
}

TEST_CASE("on production nodes a task whose executor dies runs again "
          "elsewhere, attempt 2, and ends DONE", "[sim][node][failures]") {
  one_task_running f(1000);
  f.c.crash(f.runner);
  f.c.step(6000);
  auto runs = runs_of(f.c, f.task);
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
  CHECK(total(f.c, &queue_counters::requeues) >= 1);
  auto runs = runs_of(f.c, f.task);
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].attempt == 2);
  CHECK(runs[1].ok);
  CHECK(f.phases() == std::vector<std::string>(3, "DONE"));
}

TEST_CASE("on production nodes a failed execution is retried with the next "
          "attempt up to max_attempts", "[sim][node][failures]") {
  queue_config q;
  q.max_attempts = 3;
  actor_cluster c(5, {}, q);
  start_nodes(c, 3);
  std::map<std::uint32_t, int> attempts_failed;
  bool fail_always = false;
  SECTION("always failing: FAILED after max_attempts executions") {
    fail_always = true;
  }
  SECTION("failing once: DONE on the second attempt") {}
  c.fail_executions([&](const std::string&, std::uint32_t attempt) {
    bool fails = fail_always || attempt == 1;
    if (fails)
      ++attempts_failed[attempt];
    return fails;
  });
  auto task = c.submit("n1", 200);
  REQUIRE(task);
  c.step(6000);
  std::vector<std::uint32_t> attempts;
  for (const auto& r : runs_of(c, *task))
    attempts.push_back(r.attempt);
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    auto rows = c.tasks_of(id);
    REQUIRE(rows.size() == 1);
    for (const auto& row : rows) {
      if (fail_always) {
        CHECK(row.state.phase() == wire::FAILED);
        CHECK(row.state.attempt() == 3);
        CHECK(row.state.reason() == "failed on purpose (the simulation's --fail)");
      } else {
        CHECK(row.state.phase() == wire::DONE);
        CHECK(row.state.attempt() == 2);
      }
    }
  }
  if (fail_always) {
    CHECK(attempts == std::vector<std::uint32_t>{1, 2, 3});
    CHECK(attempts_failed == std::map<std::uint32_t, int>{{1, 1}, {2, 1}, {3, 1}});
  } else {
    CHECK(attempts == std::vector<std::uint32_t>{1, 2});
    CHECK(attempts_failed == std::map<std::uint32_t, int>{{1, 1}});
  }
}

TEST_CASE("on production nodes an executor whose queue goes silent (its "
          "membership still heard): its task returns to READY with the next "
          "attempt and runs elsewhere", "[sim][node][failures]") {
  one_task_running f(1000);
  // Nothing of the queue reaches the runner or leaves it, not even its
  // DONE; its membership heartbeats still do, so nobody declares it dead
  // and only the RUNNING timeout can re-queue the task.
  auto runner = f.runner;
  f.c.drop_messages([runner](const std::string& from, const std::string& to,
                             const wire::Message& m) {
    return (from == runner || to == runner)
           && classify(m) != queue_message::none;
  });
  const queue_config q;
  // The executor is asked requeue_questions times before the re-queue.
  f.c.step(q.running_timeout_ms + q.requeue_questions * q.requeue_confirm_ms
           + q.requeue_jitter_ms + 50);
  // Every survivor computes the same READY(2); usually one announces it.
  std::uint64_t requeues = 0;
  for (const auto& id : f.c.live_nodes()) {
    if (id == runner)
      continue;
    CAPTURE(id);
    auto k = f.c.counters_of(id);
    requeues += k.requeues;
    CHECK(k.recoveries == 0);
    CHECK(row_of(f.c, id, f.task).state.attempt() == 2);
  }
  CHECK(requeues >= 1);
  CHECK(requeues <= 2);
  CHECK(f.c.wrong_death_verdicts() == 0);
  f.c.step(3000);
  auto runs = runs_of(f.c, f.task);
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].attempt == 2);
  CHECK(runs[1].node != runner);
  CHECK(runs[1].ok);
  for (const auto& id : f.c.live_nodes())
    if (id != runner) {
      CAPTURE(id);
      auto row = row_of(f.c, id, f.task);
      CHECK(row.state.phase() == wire::DONE);
      CHECK(row.state.claim().node_id() == runs[1].node);
    }
}

TEST_CASE("on production nodes an executor whose RUNNING heartbeats were "
          "lost keeps its execution and claims the new attempt",
          "[sim][node][failures]") {
  one_task_running f(4000);
  // Its RUNNING heartbeats are lost; it is alive and hears everything.
  auto runner = f.runner;
  f.c.drop_messages([runner](const std::string& from, const std::string&,
                             const wire::Message& m) {
    return from == runner && m.has_info();
  });
  const queue_config q;
  // The executor is asked requeue_questions times before the re-queue.
  f.c.step(q.running_timeout_ms + q.requeue_questions * q.requeue_confirm_ms
           + q.requeue_jitter_ms + 50);
  f.c.drop_messages(nullptr);
  f.c.step(4000);
  CHECK(f.c.counters_of(runner).reclaims >= 1);
  auto runs = runs_of(f.c, f.task);
  REQUIRE(runs.size() == 1); // no second execution
  CHECK(runs[0].ok);
  for (const auto& id : f.c.live_nodes()) {
    CAPTURE(id);
    auto row = row_of(f.c, id, f.task);
    CHECK(row.state.phase() == wire::DONE);
    CHECK(row.state.claim().node_id() == runner);
    CHECK(row.state.attempt() >= 2);
  }
}
