// The replicated queue as real CAF actors (actor_cluster): per node a
// bridge, membership, the queue facade with its seven subsystem actors,
// and an executor that runs a sleep task in virtual time, over the seeded
// simulated network under CAF's test coordinator.
#include <catch2/catch.hpp>

#include <set>
#include <vector>
#include <string>

#include "simulation/actor_cluster.hpp"

using namespace dice;

namespace {

bool all_done_everywhere(actor_cluster& c, std::size_t expected) {
  for (const auto& id : c.live_nodes()) {
    auto rows = c.tasks_of(id);
    if (rows.size() != expected)
      return false;
    for (const auto& r : rows)
      if (!r.has_spec || r.state.phase() != wire::DONE)
        return false;
  }
  return true;
}

void run_workload(std::uint64_t seed, link_faults faults, bool crash_one) {
  INFO("seed " << seed);
  queue_config q;
  q.slots = 1;
  // A matched claim waits out rival claims in flight: longer than this
  // network's delays (the default fits loopback and LANs).
  q.matched_claim_window_ms = faults.max_delay + 5;
  actor_cluster c(seed, faults, q);
  for (int i = 1; i <= 4; ++i)
    c.start("n" + std::to_string(i));
  // Everyone joins through n1, then hears every other node's heartbeat
  // (until then a node claims as if alone).
  c.step(1000);
  constexpr std::size_t tasks = 24;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < tasks; ++i) {
    auto id = c.submit("n1", 100);
    REQUIRE(id);
    ids.insert(*id);
  }
  if (crash_one) {
    c.step(200);
    c.crash("n3"); // while it runs a task
  }
  bool done = false;
  for (int i = 0; i < 60 && !done; ++i) {
    for (int s = 0; s < 50; ++s)
      c.step(10);
    done = all_done_everywhere(c, tasks);
  }
  REQUIRE(done);
  // Every replica names the same result for every task.
  auto reference = c.tasks_of("n1");
  for (const auto& id : c.live_nodes()) {
    auto rows = c.tasks_of(id);
    REQUIRE(rows.size() == reference.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      CHECK(ids.count(rows[i].spec.id()) == 1);
      CHECK(rows[i].state.result() == reference[i].state.result());
    }
  }
  std::size_t runs = 0;
  for (const auto& [task, count] : c.executions())
    runs += static_cast<std::size_t>(count);
  if (!crash_one && faults.loss == 0)
    CHECK(runs == tasks); // loss-free: every task ran exactly once
  CHECK(runs >= tasks);
}

} // namespace

TEST_CASE("queue actors: four nodes run every task once on a loss-free network",
          "[queue][actors]") {
  run_workload(1, {0, 0, 1, 20}, false);
}

TEST_CASE("queue actors: under 20% loss with a node crashed mid-run every "
          "task ends DONE on every survivor",
          "[queue][actors]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    run_workload(seed, {0.2, 0.05, 1, 30}, true);
}

TEST_CASE("queue actors: a submit of many tasks in one message answers "
          "every id once replicated, and each task runs once",
          "[queue][actors]") {
  queue_config q;
  q.slots = 1;
  actor_cluster c(7, {0, 0, 1, 20}, q);
  for (int i = 1; i <= 3; ++i)
    c.start("n" + std::to_string(i));
  for (int s = 0; s < 100; ++s)
    c.step(10); // they meet, and hear each other's version vectors
  constexpr std::size_t tasks = 40;
  std::vector<wire::TaskSpec> specs(tasks);
  for (auto& s : specs) {
    s.set_kind("sleep");
    s.set_payload("50");
  }
  std::string error;
  auto ids = c.submit_many("n2", specs, error);
  REQUIRE(error.empty());
  REQUIRE(ids);
  std::set<std::string> distinct(ids->begin(), ids->end());
  CHECK(distinct.size() == tasks);
  // Answered once replicated: another node holds every task already.
  std::set<std::string> held;
  for (const auto* other : {"n1", "n3"})
    for (const auto& r : c.tasks_of(other))
      if (r.has_spec)
        held.insert(r.spec.id());
  for (const auto& id : *ids)
    CHECK(held.count(id) == 1);
  bool done = false;
  for (int i = 0; i < 40 && !done; ++i) {
    for (int s = 0; s < 50; ++s)
      c.step(10);
    done = all_done_everywhere(c, tasks);
  }
  REQUIRE(done);
  for (const auto& id : *ids)
    CHECK(c.executions().at(id) == 1);
  SECTION("a batch with an id already known is refused with the reason") {
    std::vector<wire::TaskSpec> again(2);
    again[0].set_kind("sleep");
    again[0].set_payload("1");
    again[1] = again[0];
    again[1].set_id(ids->front());
    auto second = c.submit_many("n2", again, error);
    CHECK_FALSE(second);
    CHECK(error.find("already known") != std::string::npos);
  }
}
