// The seeded sweeps on production nodes: every node is dice::node (the
// composition dice-node runs) on the simulated network, under CAF's test
// coordinator (simulation/node_scenario.hpp). Each seed mixes loss,
// duplication, reordering, a partition, crashes with restarts, journals and
// skewed clocks; every run must converge: every accepted task DONE on every
// live replica (REMOVED if removed), the replicas identical, one live
// coordinator named by every live node, every causal event delivered where
// it must be, in order, and no two tasks naming the lock running at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>

#include "node_cases.hpp"
#include "simulation/actor_cluster.hpp"
#include "simulation/node_scenario.hpp"
#include "simulation/sweep_scenario.hpp"

using namespace dice;
using namespace dice::test;

namespace {

// The sweep scenario with journals in half the seeds, clocks up to 400 ms
// apart in one seed in eight, and a lock.
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

TEST_CASE("a partition gives one lock to two nodes, and the harness sees the "
          "wrong death verdicts that allow it", "[sim][node]") {
  actor_cluster c(3, {0, 0, 1, 8}, queue_config{});
  start_nodes(c, 3);
  c.partition({{"n1"}, {"n2", "n3"}});
  c.step(2500); // each side declares the other dead
  REQUIRE(c.wrong_death_verdicts() > 0);
  for (const auto* at : {"n1", "n2"}) {
    auto spec = sleep_task(1000);
    spec.add_locks("L");
    c.submit(at, spec, 0);
  }
  c.step(800);
  std::size_t running = 0;
  for (const auto& r : c.runs())
    running += r.end < 0 ? 1 : 0;
  CHECK(running == 2); // both sides hold L (ricart-agrawala, the default)
}

namespace {

// A task acknowledged by n2 while cut off from n1, then n2's machine
// crashes and comes back after the partition heals: the phase each replica
// ends with ("unknown" where it has no such task).
std::vector<std::string> after_machine_crash(journal_sync sync) {
  actor_cluster_options o;
  o.seed = 11;
  o.journal = true;
  o.sync = sync;
  actor_cluster c(o);
  start_nodes(c, 2);
  c.partition({{"n1"}, {"n2"}});
  auto id = c.submit("n2", 100);
  REQUIRE(id);
  c.crash("n2");
  c.heal();
  c.restart("n2");
  c.step(6000);
  std::vector<std::string> phases;
  for (const auto* at : {"n1", "n2"}) {
    auto row = find_row(c, at, *id);
    phases.push_back(row ? wire::TaskPhase_Name(row->state.phase()) : "unknown");
  }
  return phases;
}

} // namespace

TEST_CASE("a task only its machine held survives that machine's crash with "
          "--sync always, and is lost with --sync none",
          "[sim][node][journal]") {
  CHECK(after_machine_crash(journal_sync::always)
        == std::vector<std::string>{"DONE", "DONE"});
  CHECK(after_machine_crash(journal_sync::none)
        == std::vector<std::string>{"unknown", "unknown"});
}

// DICE_POLICY_SEED=N runs seed N of the policy sweep alone, to replay a
// failure.
TEST_CASE("one seed of the policy sweep (DICE_POLICY_SEED=N)",
          "[sim][node][policy][replay]") {
  const char* seed = std::getenv("DICE_POLICY_SEED");
  if (seed == nullptr)
    return;
  auto r = run_node_scenario(policy_scenario(std::stoull(seed)));
  std::cout << "policy seed " << seed << ": " << r.summary() << std::endl;
  CHECK(r.violations.empty());
  CHECK(r.converged);
}

// Per-task policies on production nodes under every fault: delayed tasks,
// tasks that expire (many before they can start), failed attempts retried
// after a backoff, clocks that disagree by up to 400 ms in half the runs.
// Every execution's start, on its node's clock, is checked against its
// task's not-before and expiry.
// (Catch's console reporter never ended wrapping this test's failure when
// it carried the run's summary: the summary goes to stdout instead.)
TEST_CASE("100 seeded runs of production nodes with delays, expiries and "
          "retry backoffs: no execution starts early or after its expiry",
          "[sim][node][policy]") {
  std::size_t expired = 0, done = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    auto r = run_node_scenario(policy_scenario(seed));
    bool ok = r.violations.empty() && r.converged
              && r.done + r.removed + r.expired >= r.accepted;
    if (!ok)
      std::cout << "policy seed " << seed << " failed: " << r.summary()
                << std::endl;
    INFO("seed " << seed << " (replay: DICE_POLICY_SEED=" << seed
                 << " dice_actor_tests '[policy][replay]')");
    CHECK(ok);
    expired += r.expired;
    done += r.done;
  }
  std::cout << "node sweep, 100 seeds, per-task policies: done=" << done
            << " expired=" << expired << "\n";
  // The runs exercise both ends: tasks that expired and tasks that ran.
  CHECK(expired >= 50);
  CHECK(done >= 300);
}

TEST_CASE("a task whose expiry passes while it waits for the node's only "
          "slot is not run and ends EXPIRED on every replica",
          "[sim][node][policy]") {
  actor_cluster c(5, {}, queue_config{});
  start_nodes(c, 2);
  // Both nodes busy for a second, then a task that expires in 300 ms:
  // claimed ahead (prefetch), it reaches a slot after its expiry.
  for (const auto* at : {"n1", "n2"})
    REQUIRE(c.submit(at, 1000));
  auto spec = sleep_task(10);
  spec.set_expires_ms(c.now() + 300);
  auto id = c.submit("n1", spec);
  REQUIRE(id);
  c.step(3000);
  CHECK(c.executions().count(*id) == 0);
  for (const auto* at : {"n1", "n2"})
    CHECK(wire::TaskPhase_Name(row_of(c, at, *id).state.phase()) == "EXPIRED");
}

TEST_CASE("on production nodes a failing task is retried no earlier than "
          "its backoff, doubled per failed attempt, and ends DONE",
          "[sim][node][policy]") {
  actor_cluster_options o;
  o.seed = 3;
  o.fail_probability = 1; // every attempt but the last fails
  o.queue.retry_backoff_ms = 400;
  actor_cluster c(o);
  start_nodes(c, 2);
  auto id = c.submit("n1", 50);
  REQUIRE(id);
  c.step(5000);
  std::map<std::uint32_t, sim_run> by_attempt;
  for (const auto& r : runs_of(c, *id))
    by_attempt[r.attempt] = r;
  REQUIRE(by_attempt.size() == 3);
  // Equal jitter: a wait of B is drawn in [B/2, B]; B is 400, then 800.
  auto gap = [&](std::uint32_t a) {
    return by_attempt.at(a + 1).start - by_attempt.at(a).end;
  };
  CHECK(gap(1) >= 200);
  CHECK(gap(1) <= 400 + 200);
  CHECK(gap(2) >= 400);
  CHECK(gap(2) <= 800 + 200);
  CHECK(wire::TaskPhase_Name(row_of(c, "n2", *id).state.phase()) == "DONE");
}

// Several claims share a datagram, as the bridge bundles them, and are lost
// together; under loss, duplication, reordering, a partition and crashes
// every run still converges.
TEST_CASE("on production nodes bursts of claims share datagrams, under every "
          "fault", "[sim][node]") {
  std::uint64_t bundles_with_claims = 0, seeds_with_bundles = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto o = burst_scenario(seed);
    auto r = run_node_scenario(o);
    INFO(r.summary());
    CAPTURE(seed);
    CHECK(r.violations.empty());
    CHECK(r.converged);
    bundles_with_claims += r.bundles_with_claims;
    seeds_with_bundles += r.bundles_with_claims > 0 ? 1 : 0;
  }
  std::cout << "node sweep, 40 seeds, bursts of claims: bundles_with_claims="
            << bundles_with_claims << " in " << seeds_with_bundles
            << " seeds\n";
  // A submitter claims its own tasks one by one, with their ENQUEUEs; the
  // other nodes' claims of a burst still share datagrams in half the seeds
  // (25 of 40 when this was written).
  CHECK(seeds_with_bundles >= 20);
  CHECK(bundles_with_claims >= 30);
}

namespace {

// 100 seeds of a retention scenario (sweep_scenario.hpp) on production
// nodes: every run converges, every ended task is forgotten on
// every replica, and none comes back or runs again where it was forgotten.
// Returns the tasks forgotten (summed over the replicas) and the crashes.
std::pair<std::size_t, std::uint64_t>
node_retention_sweep(const char* name, sim_options (*scenario_of)(std::uint64_t)) {
  std::size_t forgotten = 0;
  std::uint64_t crashes = 0, messages = 0, snapshots = 0;
  millis slowest = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    auto r = run_node_scenario(scenario_of(seed));
    messages += r.queue_messages;
    snapshots += r.snapshots;
    slowest = std::max(slowest, r.converged_at_ms);
    INFO(r.summary());
    CAPTURE(seed);
    CHECK(r.violations.empty());
    CHECK(r.converged);
    CHECK(r.held == 0);
    CHECK(r.forgotten >= r.accepted);
    forgotten += r.forgotten;
    crashes += r.crashes;
  }
  std::cout << name << ": forgotten=" << forgotten << " crashes=" << crashes
            << " queue_messages=" << messages << " snapshots=" << snapshots
            << " slowest_convergence_ms=" << slowest << "\n";
  return {forgotten, crashes};
}

} // namespace

// Retention under every fault on production nodes: tasks end and are
// forgotten 400 ms later, while partitions last longer than that, nodes
// crash and come back empty, and datagrams are lost, duplicated and
// reordered.
TEST_CASE("100 seeded runs of production nodes with a short retention: every "
          "ended task is forgotten everywhere and none comes back",
          "[sim][node][retention]") {
  auto forgotten =
    node_retention_sweep("node sweep, 100 seeds, retention 400 ms",
                         retention_scenario)
      .first;
  CHECK(forgotten >= 1000);
}

// Retention against what a node brings back from its journal: nodes crash
// and stay down longer than the retention (2.5 s against 400 ms), then
// restore the replica their journal held, with clocks that disagree by up
// to a second.
TEST_CASE("100 seeded runs of production nodes with journals, skewed clocks "
          "and nodes down longer than the retention: no forgotten task "
          "comes back", "[sim][node][retention]") {
  auto [forgotten, crashes] = node_retention_sweep(
    "node sweep, 100 seeds, journals, skewed clocks, retention 400 ms",
    journal_retention_scenario);
  CHECK(forgotten >= 1000);
  CHECK(crashes >= 80); // 91 (2026-11-27): a crash drawn too soon is skipped
}

// The long soak CI leaves out (scripts/test with DICE_SOAK=1): ten times
// the seeds, clusters of up to 10 nodes, up to 49 tasks and 3 crashes
// (about 190 s, within scripts/test's 600 s per test).
TEST_CASE("soak: 2000 more seeds and bigger clusters of production nodes "
          "(DICE_SOAK=1)",
          "[sim][node][soak]") {
  const char* soak = std::getenv("DICE_SOAK");
  if (soak == nullptr || std::string(soak) != "1")
    return;
  for (std::uint64_t seed = 1000; seed < 3000; ++seed) {
    auto o = scenario(seed);
    o.nodes = 3 + seed % 8;
    o.tasks = 10 + seed % 40;
    o.crashes = seed % 4;
    auto r = run_node_scenario(o);
    INFO("soak seed " << seed << ": " << r.summary());
    CHECK(r.violations.empty());
    CHECK(r.converged);
    CHECK(r.done + r.removed >= r.accepted);
  }
}
