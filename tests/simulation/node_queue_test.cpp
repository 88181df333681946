// The replicated queue end to end on production nodes (actor_cluster):
// submitted tasks run once each and every replica ends with the same
// DONE states; claims that cross in flight leave one execution; a late
// claim on a running task is settled by the ranking; a DONE task carries
// when it became ready and when it ran.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "node_cases.hpp"
#include "simulation/actor_cluster.hpp"

using namespace dice;
using namespace dice::test;

TEST_CASE("on production nodes submitted tasks run once each and end DONE "
          "on every replica alike", "[sim][node][queue]") {
  actor_cluster c(11, {}, queue_config{});
  start_nodes(c, 3);
  auto tasks = submit_each(c, "n1", 6, 500);
  c.step(5000);
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    auto rows = c.tasks_of(id);
    REQUIRE(rows.size() == 6);
    for (const auto& row : rows) {
      CAPTURE(row.spec.id());
      CHECK(row.state.phase() == wire::DONE);
      CHECK(row.state.result() == "slept 500 ms");
      CHECK(row.spec.enqueuer() == "n1");
    }
  }
  check_converged(c); // the same merged states on every replica
  for (const auto& t : tasks)
    CHECK(c.executions().at(t) == 1);
  // Each node walks the tasks in its own order: the work spreads out.
  std::set<std::string> workers;
  for (const auto& r : c.runs())
    workers.insert(r.node);
  CHECK(workers.size() >= 2);
}

TEST_CASE("on production nodes three claims that cross in flight leave "
          "exactly one execution, the enqueuer's", "[sim][node][queue]") {
  // No claim matching: every idle node claims the head of its own walk
  // at once, as nodes that have not yet heard of each other's seats do.
  queue_config q;
  q.claim_stagger_ms = 0;
  actor_cluster c(11, {}, q);
  start_nodes(c, 3);
  // Every replica holds the task before any may claim it, so all three
  // claim in the same millisecond and their DEQUEUEs cross.
  auto spec = sleep_task(300);
  spec.set_not_before_ms(c.now() + 500);
  auto task = c.submit("n2", spec);
  REQUIRE(task);
  c.step(2000);
  REQUIRE(total(c, &queue_counters::claims) == 3);
  CHECK(total(c, &queue_counters::claims_lost) == 2);
  auto runs = runs_of(c, *task);
  REQUIRE(runs.size() == 1); // no loser started, none was canceled
  CHECK(runs[0].ok);
  // Same battery, class and dequeue time: the enqueuer's claim wins, on
  // every replica alike.
  CHECK(runs[0].node == "n2");
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    auto row = row_of(c, id, *task);
    CHECK(row.state.phase() == wire::DONE);
    CHECK(row.state.claim().node_id() == "n2");
  }
}

TEST_CASE("on production nodes a late claim on a running task: the ranking "
          "decides, the loser cancels", "[sim][node][queue]") {
  // n2 runs the task; n1 claims it late, not having heard n2's claim:
  // n1's one slot was busy until then (no prefetch), and n2's DEQUEUE,
  // RUNNING heartbeats and sync replies to n1 are lost until n1 claims.
  queue_config late; // n1
  late.prefetch = 0;
  queue_config running; // n2
  bool late_better = false;
  SECTION("a better late claim takes over, the running loser cancels") {
    late.battery = 90;
    running.battery = 20;
    late_better = true;
  }
  SECTION("a worse late claim loses and never executes") {
    late.battery = 20;
    running.battery = 90;
  }
  actor_cluster c(11, {}, queue_config{});
  c.start("n1", late);
  c.step(1500);
  auto busy = c.submit("n1", 3000); // alone: n1 runs it
  REQUIRE(busy);
  c.start("n2", running);
  c.step(1000);
  REQUIRE(runs_of(c, *busy).size() == 1);
  c.drop_messages([](const std::string& from, const std::string& to,
                     const wire::Message& m) {
    return from == "n2" && to == "n1"
           && (m.has_dequeue() || m.has_info() || m.has_sync_reply());
  });
  auto task = c.submit("n2", 4000); // runs past the end of n1's
  REQUIRE(task);
  c.step(200);
  auto first = runs_of(c, *task);
  REQUIRE(first.size() == 1);
  REQUIRE(first[0].node == "n2");
  // n1's slot frees: it still sees the task READY and claims it, late.
  for (millis waited = 0; c.counters_of("n1").claims < 2 && waited < 3000;
       ++waited)
    c.step(1);
  REQUIRE(c.counters_of("n1").claims == 2);
  c.drop_messages(nullptr);
  c.step(6000);

  auto winner = late_better ? "n1" : "n2";
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    auto row = row_of(c, id, *task);
    CHECK(row.state.phase() == wire::DONE);
    CHECK(row.state.claim().node_id() == winner);
  }
  auto runs = runs_of(c, *task);
  if (late_better) {
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].node == "n2");
    CHECK_FALSE(runs[0].ok); // canceled
    CHECK(runs[0].end >= 0);
    CHECK(runs[1].node == "n1");
    CHECK(runs[1].ok);
    CHECK(c.counters_of("n2").executions_canceled == 1);
  } else {
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].ok);
    CHECK(c.counters_of("n2").executions_canceled == 0);
    CHECK(c.counters_of("n1").claims_lost == 1);
  }
}

TEST_CASE("on production nodes a DONE task tells every replica when it "
          "became ready and when its execution started",
          "[sim][node][queue]") {
  actor_cluster c(11, {}, queue_config{});
  start_nodes(c, 3);
  auto submitted = c.now(); // no clock skew: every node's clock reads this
  auto task = c.submit("n1", 500);
  REQUIRE(task);
  c.step(3000);
  auto runs = runs_of(c, *task);
  REQUIRE(runs.size() == 1);
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    auto s = row_of(c, id, *task).state;
    REQUIRE(s.phase() == wire::DONE);
    CHECK(s.ready_time_ms() == submitted);
    // The execution starts at once, on the idle node it was submitted to...
    CHECK(runs[0].node == "n1");
    CHECK(s.started_time_ms() == submitted);
    CHECK(s.started_time_ms() == runs[0].start);
    // ...and ran for the task's duration.
    CHECK(s.finished_time_ms() - s.started_time_ms() == 500);
  }
  check_converged(c);
}
