// The seeded sweeps on production nodes: every node is dice::node (the
// composition dice-node runs) on the simulated network, under CAF's test
// coordinator (simulation/node_scenario.hpp). Each seed mixes loss,
// duplication, reordering, a partition, crashes with restarts, journals and
// skewed clocks; every run must converge: every accepted task DONE on every
// live replica (REMOVED if removed), the replicas identical, one live
// coordinator named by every live node, every causal event delivered where
// it must be, in order, and no two tasks naming the lock running at once.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "simulation/actor_cluster.hpp"
#include "simulation/node_scenario.hpp"
#include "simulation/sweep_scenario.hpp"

using namespace dice;

namespace {

// With journals, skewed clocks and a lock, which the machines' sweep leaves
// out.
sim_options scenario(std::uint64_t seed) {
  auto o = sweep_scenario(seed);
  o.journal = seed % 6 >= 3;
  o.clock_skew_ms = seed % 8 == 5 ? 400 : 0;
  o.locks = true;
  return o;
}

} // namespace

TEST_CASE("200 seeded runs of production nodes with loss, duplication, "
          "reordering, a partition, crashes, removes, failures, journals and "
          "skewed clocks: no accepted task lost, replicas equal, one "
          "coordinator, causal events delivered, one lock holder",
          "[sim][node]") {
  std::size_t tasks = 0, executions = 0, duplicates = 0, crashes = 0;
  std::size_t locks_checked = 0, removed = 0;
  auto began = std::chrono::steady_clock::now();
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    auto r = run_node_scenario(scenario(seed));
    INFO("seed " << seed << " (replay: dice-sim with its scenario): "
                 << r.summary());
    CHECK(r.violations.empty());
    CHECK(r.converged);
    CHECK(r.done + r.removed >= r.accepted);
    CHECK(r.accepted > 0);
    tasks += r.tasks;
    executions += r.executions;
    duplicates += r.duplicates;
    crashes += r.crashes;
    locks_checked += r.wrong_death_verdicts == 0 ? 1 : 0;
    removed += r.removed;
  }
  std::chrono::duration<double> wall = std::chrono::steady_clock::now() - began;
  std::cout << "node sweep 200 seeds: tasks=" << tasks << " executions="
            << executions << " duplicates=" << duplicates << " crashes="
            << crashes << " removed=" << removed << " lock_checked_runs=" << locks_checked << " wall_s=" << wall.count()
            << " seeds_per_s=" << 200 / wall.count() << "\n";
}

TEST_CASE("the node scenario flags a run that cannot converge", "[sim][node]") {
  // Every datagram lost until the end: nothing is acknowledged, and the
  // nodes never learn of each other, so they name different coordinators.
  sim_options o;
  o.nodes = 3;
  o.tasks = 4;
  o.faults.loss = 0.999;
  o.faults_until_ms = 1'000'000;
  o.max_time_ms = 6000;
  auto r = run_node_scenario(o);
  CHECK_FALSE(r.converged);
  CHECK_FALSE(r.violations.empty());
}

TEST_CASE("the node scenario refuses what only the machines simulate",
          "[sim][node]") {
  sim_options o;
  o.timeline_every_ms = 100;
  CHECK(node_scenario_refuses(o) == "--timeline");
  CHECK_THROWS_AS(run_node_scenario(o), std::invalid_argument);
}

TEST_CASE("a partition gives one lock to two nodes, and the harness sees the "
          "wrong death verdicts that allow it", "[sim][node]") {
  actor_cluster c(3, {0, 0, 1, 8}, queue_config{});
  for (const auto* id : {"n1", "n2", "n3"})
    c.start(id);
  c.step(1500);
  c.partition({{"n1"}, {"n2", "n3"}});
  c.step(2500); // each side declares the other dead
  REQUIRE(c.wrong_death_verdicts() > 0);
  for (const auto* at : {"n1", "n2"}) {
    wire::TaskSpec spec;
    spec.set_kind("sleep");
    spec.set_payload("1000");
    spec.add_locks("L");
    c.submit(at, spec, 0);
  }
  c.step(800);
  std::size_t running = 0;
  for (const auto& r : c.runs())
    running += r.end < 0 ? 1 : 0;
  CHECK(running == 2); // both sides hold L (ricart-agrawala, the default)
}
