// Restarts add an origin (a node incarnation) to every version vector; the
// superseded ones must leave again, or heartbeats outgrow a datagram after
// enough restarts. Seeded runs of production nodes (actor_cluster) with
// many restarts, loss, duplication, reordering and a partition: the
// replicas converge, the vectors stay the size of the cluster, not of its
// history, and every heartbeat fits one frame.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/defaults.hpp"
#include "membership/membership_state.hpp"
#include "node_cases.hpp"
#include "simulation/actor_cluster.hpp"

using namespace dice;
using namespace dice::test;

namespace {

// The origins each node's last heartbeat carried, and the most any did.
struct vector_widths {
  std::map<std::string, std::size_t> last;
  std::size_t widest = 0;
  void watch(actor_cluster& c) {
    c.drop_messages([this](const std::string& from, const std::string&,
                           const wire::Message& m) {
      if (m.has_heartbeat()) {
        auto n = static_cast<std::size_t>(m.heartbeat().versions_size());
        last[from] = n;
        widest = std::max(widest, n);
      }
      return false; // looks, drops nothing
    });
  }
  // Of the nodes up now.
  std::size_t final_widest(const actor_cluster& c) const {
    std::size_t w = 0;
    for (const auto& id : c.live_nodes())
      if (auto it = last.find(id); it != last.end())
        w = std::max(w, it->second);
    return w;
  }
};

// Seeded faults on every link: `loss`, `duplicate`, and delays of 1 to
// 30 ms that reorder datagrams.
actor_cluster_options under_faults(std::uint64_t seed, double loss,
                                   double duplicate) {
  actor_cluster_options o;
  o.seed = seed;
  o.faults.loss = loss;
  o.faults.duplicate = duplicate;
  o.faults.min_delay = 1;
  o.faults.max_delay = 30;
  return o;
}

wire::TaskSpec echo() {
  wire::TaskSpec s;
  s.set_kind("echo"); // runs for 0 ms
  return s;
}

std::string node(std::size_t i) { return "n" + std::to_string(i + 1); }

int restarts_to_run() {
  if (const char* soak = std::getenv("DICE_RESTART_SOAK"))
    return std::max(1, std::atoi(soak));
  return 100;
}

} // namespace

TEST_CASE("on production nodes after many restarts under loss and a "
          "partition, version vectors hold about one origin per node and "
          "every replica converges", "[sim][node][restarts]") {
  // Three seeds, about 2.5 s of CPU each.
  auto seed = GENERATE(range<std::uint64_t>(1, 4));
  INFO("seed " << seed); // a failing seed replays exactly
  auto o = under_faults(seed, seed % 2 == 0 ? 0.2 : 0.05, 0.05);
  o.queue.prune_superseded_after_ms = 2000;
  actor_cluster c(o);
  vector_widths widths;
  widths.watch(c);
  const std::size_t nodes = 8;
  start_nodes(c, nodes, 2000);
  std::mt19937_64 rng(seed);
  const int restarts = 200;
  for (int r = 0; r < restarts; ++r) {
    auto i = std::uniform_int_distribution<std::size_t>(0, nodes - 1)(rng);
    if (r == restarts / 2) { // both sides prune on their own, then meet
      c.partition({{"n1", "n2", "n3"}, {"n4", "n5", "n6", "n7", "n8"}});
      c.step(8000);
      c.heal();
    }
    c.crash(node(i));
    c.step(200);
    c.restart(node(i));
    c.step(100);
    c.submit(node(i), echo(), 0); // its new incarnation issues an op
    // Memory-only nodes restart empty: a task survives only while some
    // replica holding it is up, so each one gets time to spread.
    c.step(700);
  }
  for (millis waited = 0; waited < 60'000 && !converged(c); waited += 500)
    c.step(500);
  // The last superseded origins leave too. Pruning waits for a round of
  // whole reports from every live peer (one every 8th heartbeat each), and
  // at 20% loss one of the seven is often lost: several rounds, not one.
  c.step(15000);
  check_converged(c);
  auto final_widest = widths.final_widest(c);
  std::cout << "restarts on production nodes, seed " << seed << ": " << restarts
            << " restarts, widest vector " << widths.widest
            << " origins, at the end " << final_widest << ", largest heartbeat "
            << c.traffic().largest_heartbeat_bytes << " bytes\n";
  // Without pruning: 8 + 200 origins at the end, growing all the while. A
  // superseded origin lingers about prune_superseded_after_ms (two
  // restarts' worth here) and while some peer's report of it differs.
  CHECK(widths.widest < nodes + restarts / 4);
  CHECK(final_widest <= nodes);
}

TEST_CASE("on production nodes 32 nodes restarting every 300 ms keep every "
          "heartbeat within one frame, and converge",
          "[sim][node][restarts][heartbeat]") {
  // One seed a run, the lossier one (each takes ~8 s of CPU):
  // DICE_RESTART_SOAK_SEED=N runs seed N instead.
  std::uint64_t seed = 2;
  if (const char* only = std::getenv("DICE_RESTART_SOAK_SEED"))
    seed = std::strtoull(only, nullptr, 10);
  INFO("seed " << seed);
  auto o = under_faults(seed, seed % 2 == 0 ? 0.1 : 0.03, 0.03);
  // A third of the default wait (30 s), to fit a few seconds of CPU:
  // restarts still come ~33 per wait, more superseded origins than the
  // heartbeat budget holds beside 32 current ones, so the budget must
  // prune early.
  o.queue.prune_superseded_after_ms = 10'000;
  actor_cluster c(o);
  vector_widths widths;
  widths.watch(c);
  const std::size_t nodes = 32;
  start_nodes(c, nodes, 3000);
  std::mt19937_64 rng(seed);
  // 100 restarts: 30 s of virtual time, three waits. DICE_RESTART_SOAK=N
  // runs N.
  const int restarts = restarts_to_run();
  auto restart = [&](std::size_t i) {
    c.crash(node(i));
    c.step(150);
    c.restart(node(i));
    c.step(150);
  };
  for (int r = 0; r < restarts; ++r) {
    // Both sides restart and prune on their own, then meet. The restarted
    // nodes of the side without n1, through which every node joins, wait
    // for the heal to join.
    if (r == restarts / 2) {
      std::vector<std::string> small, large;
      for (std::size_t n = 0; n < nodes; ++n)
        (n < 10 ? small : large).push_back(node(n));
      c.partition({small, large});
      for (int k = 0; k < 20; ++k)
        restart(std::uniform_int_distribution<std::size_t>(0, nodes - 1)(rng));
      c.heal();
    }
    auto i = std::uniform_int_distribution<std::size_t>(0, nodes - 1)(rng);
    restart(i);
    // Each new incarnation issues an op, so its origin enters the
    // vectors: enough origins at once that the heartbeat budget has to
    // prune early.
    c.submit(node(i), echo(), 0);
  }
  for (millis waited = 0; waited < 120'000 && !converged(c); waited += 500)
    c.step(500);
  // The last superseded origins leave prune_superseded_after_ms after a
  // replica marks them, which one brought up to date by a snapshot does
  // late: wait up to three times that for every one to go.
  for (millis waited = 0; waited < 3 * o.queue.prune_superseded_after_ms
                          && widths.final_widest(c) > nodes;
       waited += 1000)
    c.step(1000);
  auto pruned_early = total(c, &queue_counters::origins_pruned_early);
  auto final_widest = widths.final_widest(c);
  auto largest = c.traffic().largest_heartbeat_bytes; // sealed, as sent
  // What a dice-node's heartbeat has that these lack: an address of up to
  // 19 bytes ("192.168.100.20:7946", 5 more than "10.1.0.17:7400") for the
  // sender and each gossiped peer. Its origins are longer too (a 13-digit
  // incarnation, 7 digits here), but the version vector is held to
  // heartbeat_versions_bytes in bytes, so longer origins mean fewer of
  // them, not a longer heartbeat.
  const std::size_t allowance =
    (1 + membership_config{}.gossip_peers_per_heartbeat) * 5;
  std::cout << "heartbeat bound on production nodes, seed " << seed << ": "
            << restarts << " restarts of 32 nodes, widest vector "
            << widths.widest << " origins, at the end " << final_widest
            << ", largest heartbeat " << largest << " bytes (+" << allowance
            << ")\n";
  check_converged(c);
  CHECK(final_widest <= nodes);
  CHECK(pruned_early > 0); // the budget, not the wait, held the vectors
  // The whole heartbeat datagram, sealed, fits one frame.
  CHECK(largest + allowance <= defaults::bundle_bytes);
}
