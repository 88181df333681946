// Heartbeats of a 32-node cluster stay within one frame however often its
// nodes restart. Every restart adds an origin (a node incarnation) to every
// version vector; superseded ones leave after prune_superseded_after_ms
// (30 s), so restarts faster than that would grow every heartbeat with the
// restart rate. Past the heartbeat budget the settled ones leave at once.
//
// Seeded runs of the whole cluster, a restart every 300 ms of virtual time
// (~100 within one prune_superseded_after_ms), with loss, duplication,
// reordering and a partition in the middle: the largest heartbeat sent,
// sealed as dice-node seals it, fits --bundle-bytes, and the replicas
// converge with one origin per node.
//
// DICE_RESTART_SOAK=10000 runs that many restarts per seed (not in CI:
// about 4 minutes a seed at 3,000 and 40 at 10,000), and
// DICE_RESTART_SOAK_SEED=N only seed N; the default runs 300 (~10 per
// node, ~90 s of virtual time, three times prune_superseded_after_ms).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>

#include "common/defaults.hpp"
#include "simulation/sim_cluster.hpp"

using namespace dice;

namespace {

int restarts_to_run() {
  if (const char* soak = std::getenv("DICE_RESTART_SOAK"))
    return std::max(1, std::atoi(soak));
  return 300;
}

// The simulation's heartbeats carry short addresses ("n17") and no HMAC
// tag. What a dice-node's sealed heartbeat adds to the same message: the
// envelope (protocol version, message framing, a 32-byte HMAC-SHA256 tag:
// 39 bytes), an address of up to 19 bytes ("192.168.100.20:7946", 16 more
// than "n17") for the sender and each of the 8 gossip peers listed, and
// the cluster id "dice" (1 more than "sim").
constexpr std::size_t sealing_allowance =
  39 + (1 + membership_config{}.gossip_peers_per_heartbeat) * 16 + 1;

} // namespace

TEST_CASE("32 nodes restarting every 300 ms keep every heartbeat within one "
          "frame, and converge",
          "[sim][restarts][heartbeat]") {
  auto seed = GENERATE(range<std::uint64_t>(1, 3));
  if (const char* only = std::getenv("DICE_RESTART_SOAK_SEED");
      only != nullptr && std::to_string(seed) != only)
    return;
  CAPTURE(seed); // a failing seed replays exactly
  sim_options o;
  o.seed = seed;
  o.nodes = 32;
  o.tasks = 0; // submitted below
  o.faults.loss = seed % 2 == 0 ? 0.1 : 0.03;
  o.faults.duplicate = 0.03;
  o.faults.min_delay = 1;
  o.faults.max_delay = 30;
  // dice-node's incarnation is its start time in ms: origins as long as a
  // real node's ("n17#1764115200000").
  o.first_incarnation = 1'764'115'200'000;
  REQUIRE(o.queue.prune_superseded_after_ms == queue_config{}.prune_superseded_after_ms);
  sim_cluster c(o);
  std::mt19937_64 rng(seed);
  const int restarts = restarts_to_run();
  std::size_t widest = 0;
  int task = 0;
  // Each node's current incarnation: every other origin is superseded.
  std::vector<std::uint64_t> incarnation(o.nodes, o.first_incarnation);
  auto restart = [&](std::size_t i) {
    c.crash(i);
    c.run_until(c.now() + 150);
    c.restart(i);
    ++incarnation[i];
    c.run_until(c.now() + 150);
  };
  for (int r = 0; r < restarts; ++r) {
    if (r == restarts / 2) { // both sides restart and prune on their own, then meet
      c.partition({{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
                   {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                    24, 25, 26, 27, 28, 29, 30, 31}});
      for (int k = 0; k < 20; ++k) {
        restart(std::uniform_int_distribution<std::size_t>(0, o.nodes - 1)(rng));
      }
      c.heal();
    }
    auto i = std::uniform_int_distribution<std::size_t>(0, o.nodes - 1)(rng);
    restart(i);
    if (r % 10 == 0) {
      wire::TaskSpec spec;
      spec.set_id("t" + std::to_string(++task));
      spec.set_kind("echo");
      c.submit((i + 1) % o.nodes, spec);
    }
    if (r % 50 == 0)
      for (std::size_t n = 0; n < c.size(); ++n)
        if (c.is_up(n))
          widest = std::max(widest, c.node(n).seen().entries().size());
  }
  c.heal();
  auto end = c.now() + 120'000;
  while (c.now() < end && !c.converged())
    c.run_until(c.now() + 500);
  // Superseded origins still in some replica's vector, with why each is
  // there when `tell` is set.
  auto superseded_left = [&](bool tell) {
    std::size_t left = 0;
    for (std::size_t n = 0; n < c.size(); ++n)
      for (const auto& [origin, seq] : c.node(n).seen().entries()) {
        auto hash = origin.find('#'); // "n17#1764115200042"
        auto node = std::stoul(origin.substr(1, hash - 1)) - 1;
        if (std::stoull(origin.substr(hash + 1)) >= incarnation.at(node))
          continue;
        ++left;
        if (!tell)
          continue;
        std::size_t holders = 0;
        for (std::size_t m = 0; m < c.size(); ++m)
          holders += c.node(m).seen().only(origin) == version_vector{} ? 0 : 1;
        const auto& marked = c.node(n).superseded();
        std::cout << "  left on n" << n + 1 << ": " << origin
                  << (marked.count(origin) ? ", superseded for "
                                               + std::to_string(c.now() - marked.at(origin))
                                               + " ms"
                                           : std::string(", never marked superseded"))
                  << ", held by " << holders << " replica(s)\n";
      }
    return left;
  };
  // The last superseded origins leave prune_superseded_after_ms after a
  // replica marks them, which a replica restored from its journal, or
  // brought up to date by a snapshot, does late: wait up to three times
  // that for every one to go.
  auto settle_until = c.now() + 3 * queue_config{}.prune_superseded_after_ms;
  do
    c.run_until(c.now() + 5000);
  while (c.now() < settle_until && superseded_left(false) > 0);
  auto report = c.report();
  INFO(report.summary());
  std::size_t final_widest = 0;
  for (std::size_t n = 0; n < c.size(); ++n)
    final_widest = std::max(final_widest, c.node(n).seen().entries().size());
  auto left = superseded_left(true);
  std::cout << "heartbeat bound seed " << seed << ": " << restarts
            << " restarts of 32 nodes, widest vector " << widest
            << " origins, at the end " << final_widest << " ("
            << left << " superseded)"
            << ", largest heartbeat " << report.largest_heartbeat_bytes
            << " bytes (+" << sealing_allowance << " sealed)\n";
  CHECK(c.converged());
  CHECK(report.violations.empty());
  // Every superseded origin left every replica: one origin per node that
  // issued ops, at most.
  CHECK(left == 0);
  CHECK(final_widest <= o.nodes);
  // The whole heartbeat datagram, sealed, fits one frame.
  CHECK(report.largest_heartbeat_bytes + sealing_allowance
        <= defaults::bundle_bytes);
}
