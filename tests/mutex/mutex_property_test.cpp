// Seeded simulations of the four mutual exclusion algorithms: safety (never
// two holders of one resource) checked after every step, in the conditions
// docs/coordination.md claims each safe, and liveness after the last fault (every
// waiting node enters within a stated bound). DICE_SOAK=1 runs many more
// seeds; DICE_MUTEX_TRACE=<seed> prints every step of that seed.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "simulation/mutex_sim.hpp"

using namespace dice;

namespace {

bool soak() {
  const char* s = std::getenv("DICE_SOAK");
  return s && std::string{s} == "1";
}

std::uint64_t seeds() { return soak() ? 1000 : 25; }

void maybe_trace(mutex_sim_config& cfg) {
  const char* s = std::getenv("DICE_MUTEX_TRACE");
  if (s && std::to_string(cfg.seed) == s)
    cfg.trace = [](const std::string& line) { std::cerr << line << '\n'; };
}

/// After the last fault, every waiting node enters within this. The worst
/// recovery comes first: voting's reclaim (a vote held by a crashed node) plus
/// its lease; the token's loss timeout plus a census; a central coordinator's
/// census. Then every other node may be served ahead (at most 2 hold_ms and a
/// few message delays each, a token round for token ring).
millis liveness_bound(const mutex_sim_config& c) {
  const auto n = static_cast<millis>(c.nodes);
  const auto& m = c.mutex;
  millis recovery = 0;
  if (c.algorithm == "voting")
    recovery = m.reclaim_ms + m.lease_ms;
  else if (c.algorithm == "token-ring")
    recovery = m.token_loss_ms + n * (m.token_hop_ms + m.retry_ms) + 4 * m.retry_ms;
  else
    recovery = 4 * m.retry_ms;
  millis per_node = 2 * c.hold_ms + 4 * c.faults.max_delay + 2 * m.retry_ms;
  if (c.algorithm == "token-ring")
    per_node += n * (m.token_hop_ms + 2 * c.faults.max_delay);
  return c.detect_ms + recovery + n * per_node;
}

/// The faults every algorithm survives: loss, duplication and reordering
/// throughout, a crash, and the crashed node's restart; voting also a
/// partition (claimed safe under partitions). Then a quiet network, and
/// every request must be granted within the bound.
void run_faults(const std::string& algorithm, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  mutex_sim_config cfg;
  cfg.algorithm = algorithm;
  cfg.seed = seed;
  cfg.nodes = 3 + seed % 5;
  cfg.resources = 1 + seed % 3;
  cfg.faults = link_faults{0.1, 0.05, 1, 30};
  maybe_trace(cfg);
  mutex_sim sim(cfg);
  auto pick = [&] {
    return sim.ids()[std::uniform_int_distribution<std::size_t>(0, cfg.nodes - 1)(rng)];
  };
  sim.run_until(1000);
  auto victim = pick();
  sim.crash(victim);
  sim.run_until(2500);
  sim.restart(victim);
  millis last_fault = 3500;
  if (algorithm == "voting") {
    // Cut the cluster in two; at most one side has a majority.
    std::vector<std::string> a, b;
    for (const auto& id : sim.ids())
      (std::uniform_int_distribution<int>(0, 1)(rng) ? a : b).push_back(id);
    sim.run_until(3000);
    sim.partition({a, b});
    sim.run_until(6000);
    sim.heal();
    last_fault = 6000;
  }
  sim.run_until(last_fault);
  sim.set_faults(link_faults{0, 0, 1, 30});
  sim.run_until(last_fault + cfg.detect_ms);
  sim.mark_settled();
  sim.run_until(last_fault + cfg.detect_ms + 10'000);
  INFO("algorithm " << algorithm << ", seed " << seed << ", " << cfg.nodes
                    << " nodes (DICE_MUTEX_TRACE=" << seed << " to trace)\n"
                    << sim.describe());
  REQUIRE(sim.violation() == "");
  CHECK(sim.longest_wait_since_mark() <= liveness_bound(cfg));
  CHECK(sim.entries() > 10 * cfg.nodes);
}

} // namespace

TEST_CASE("mutex property: every algorithm is safe under loss, duplication, "
          "reordering, a crash and a restart, and live after the last fault",
          "[mutex][property]") {
  for (const auto& algorithm : mutex_algorithms()) {
    DYNAMIC_SECTION(algorithm) {
      for (std::uint64_t seed = 1; seed <= seeds(); ++seed)
        run_faults(algorithm, seed);
    }
  }
}

TEST_CASE("mutex property: only voting stays safe when the cluster is "
          "partitioned", "[mutex][property]") {
  // Each side of a partition declares the other dead: central elects a
  // second coordinator, Ricart-Agrawala stops asking the other side, token
  // ring makes a second token. Within a few seeds two nodes hold one resource.
  for (const auto& algorithm : mutex_algorithms()) {
    if (algorithm == "voting")
      continue;
    DYNAMIC_SECTION(algorithm) {
      bool violated = false;
      for (std::uint64_t seed = 1; seed <= 20 && !violated; ++seed) {
        mutex_sim_config cfg;
        cfg.algorithm = algorithm;
        cfg.seed = seed;
        cfg.nodes = 4;
        cfg.resources = 1;
        cfg.hold_ms = 200;
        mutex_sim sim(cfg);
        sim.run_until(500);
        sim.partition({{"n000", "n001"}, {"n002", "n003"}});
        sim.run_until(15'000);
        violated = !sim.violation().empty();
      }
      CHECK(violated);
    }
  }
}
