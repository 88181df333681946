// The seeded sweeps on production nodes: every node is dice::node (the
// composition dice-node runs) on the simulated network, under CAF's test
// coordinator (simulation/node_scenario.hpp). Each seed mixes loss,
// duplication, reordering, a partition, crashes with restarts, journals and
// skewed clocks; every run must converge: every accepted task DONE on every
// live replica, the replicas identical, one live coordinator named by every
// live node, and every causal event delivered where it must be, in order.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "simulation/node_scenario.hpp"
#include "simulation/sweep_scenario.hpp"

using namespace dice;

namespace {

// With journals and skewed clocks, which the machines' sweep leaves out.
sim_options scenario(std::uint64_t seed) {
  auto o = sweep_scenario(seed);
  o.journal = seed % 6 >= 3;
  o.clock_skew_ms = seed % 8 == 5 ? 400 : 0;
  return o;
}

} // namespace

TEST_CASE("200 seeded runs of production nodes with loss, duplication, "
          "reordering, a partition, crashes, journals and skewed clocks: "
          "no accepted task lost, replicas equal, one coordinator, causal "
          "events delivered",
          "[sim][node]") {
  std::size_t tasks = 0, executions = 0, duplicates = 0, crashes = 0;
  auto began = std::chrono::steady_clock::now();
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    auto r = run_node_scenario(scenario(seed));
    INFO("seed " << seed << " (replay: dice-sim with its scenario): "
                 << r.summary());
    CHECK(r.violations.empty());
    CHECK(r.converged);
    CHECK(r.done >= r.accepted);
    CHECK(r.accepted > 0);
    tasks += r.tasks;
    executions += r.executions;
    duplicates += r.duplicates;
    crashes += r.crashes;
  }
  std::chrono::duration<double> wall = std::chrono::steady_clock::now() - began;
  std::cout << "node sweep 200 seeds: tasks=" << tasks << " executions="
            << executions << " duplicates=" << duplicates << " crashes="
            << crashes << " wall_s=" << wall.count()
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
  o.removes = 1;
  CHECK(node_scenario_refuses(o) == "--remove");
  CHECK_THROWS_AS(run_node_scenario(o), std::invalid_argument);
}
