// Property tests over many seeds: safety after every step, liveness within a
// stated bound after the last fault. DICE_SOAK=1 runs many more seeds on
// larger clusters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>
#include <set>
#include <string>

#include "election/election.hpp"
#include "simulation/election_sim.hpp"

using namespace dice;

namespace {

bool soak() {
  const char* s = std::getenv("DICE_SOAK");
  return s && std::string{s} == "1";
}

std::uint64_t seeds() { return soak() ? 2000 : 100; }

/// DICE_ELECTION_TRACE=<seed> prints every step of that seed to stderr.
void maybe_trace(election_sim_config& cfg) {
  const char* s = std::getenv("DICE_ELECTION_TRACE");
  if (s && std::to_string(cfg.seed) == s)
    cfg.trace = [](const std::string& line) { std::cerr << line << '\n'; };
}
std::size_t max_nodes() { return soak() ? 24 : 9; }

/// Bully assumes messages arrive within T; the others survive loss.
double loss_for(const std::string& algorithm) {
  return algorithm == "bully" ? 0.0 : 0.03;
}

/// After the last fault every live node agrees within this.
/// bully: an election is about 4 T, plus a periodic check that finds a
/// stray member and a retry after wait_higher (6 T): 2 checks + 20 T.
/// ring, hs, echo: a doomed instance times out after ring_timeout(n) and
/// the next completes well inside another: 3 ring timeouts.
/// invitation: Recovery is immediate; merging needs a check, the priority
/// wait and ~4 T, twice if two merges collide, hence 3 such rounds.
millis liveness_bound(const std::string& algorithm, std::size_t n,
                      const election_config& c) {
  if (algorithm == "bully")
    return 2 * c.check_interval_ms + 20 * c.answer_timeout_ms;
  if (algorithm == "invitation")
    return 3 * (c.check_interval_ms + c.merge_delay_ms
                + 5 * c.answer_timeout_ms);
  return 3 * c.hop_timeout_ms * (8 * static_cast<millis>(n) + 8);
}

/// Who must win among the live nodes of `sim`, if the algorithm says.
std::optional<std::string> expected_winner(const election_sim_config& cfg,
                                           const election_sim& sim) {
  auto live = sim.live();
  if (cfg.algorithm == "echo") {
    std::pair<std::uint32_t, std::string> best{0, ""};
    for (std::size_t i = 0; i < sim.ids().size(); ++i)
      if (sim.is_up(sim.ids()[i]))
        best = std::max(best, {cfg.capacities[i], sim.ids()[i]});
    return best.second;
  }
  if (cfg.algorithm == "invitation")
    return std::nullopt;
  return live.back();
}

void crash_and_recover(const std::string& algorithm, std::uint64_t seed) {
  std::mt19937_64 rng{seed};
  election_sim_config cfg;
  cfg.algorithm = algorithm;
  cfg.seed = seed;
  cfg.nodes = 3 + rng() % (max_nodes() - 2);
  for (std::size_t i = 0; i < cfg.nodes; ++i)
    cfg.capacities.push_back(static_cast<std::uint32_t>(rng() % 5)); // ties
  // Election rounds get cut short by the (seeded) faults: dup and reorder
  // always, loss where the algorithm tolerates it.
  link_faults calm{0, 0.02, 1, 10};
  link_faults rough = calm;
  rough.loss = loss_for(algorithm);
  cfg.faults = rough;
  maybe_trace(cfg);
  election_sim sim{cfg};
  auto bound = liveness_bound(algorithm, cfg.nodes, cfg.election);
  CAPTURE(algorithm, seed, cfg.nodes, bound);

  sim.set_faults(calm);
  auto started = sim.run_until_agreed(bound);
  INFO(sim.describe());
  REQUIRE(started);
  sim.set_faults(rough);
  auto faults = 1 + rng() % 3;
  for (std::uint64_t f = 0; f < faults; ++f) {
    sim.run_until(sim.now() + static_cast<millis>(rng() % 2000));
    auto live = sim.live();
    std::vector<std::string> down;
    for (const auto& id : sim.ids())
      if (!sim.is_up(id))
        down.push_back(id);
    if (!down.empty() && (live.size() == 1 || rng() % 2 == 0)) {
      sim.restart(down[rng() % down.size()]);
    } else {
      // The coordinator if there is one, otherwise anybody.
      auto victim = live[rng() % live.size()];
      for (const auto& id : live)
        if (sim.node(id).coordinator() == id && sim.node(id).state() == "normal")
          victim = id;
      sim.crash(victim);
    }
    INFO("fault " << f << " at t=" << sim.now());
    REQUIRE(sim.violation() == "");
  }
  sim.set_faults(calm);
  auto last_fault = sim.now();
  auto agreed = sim.run_until_agreed(last_fault + bound);
  INFO("last fault at t=" << last_fault << ", now t=" << sim.now());
  INFO(sim.describe());
  REQUIRE(sim.violation() == "");
  REQUIRE(agreed);
  auto coord = sim.coordinator_of(sim.live().front());
  if (auto want = expected_winner(cfg, sim))
    CHECK(coord == want);
  // Agreement is stable, not a passing moment.
  sim.run_until(sim.now() + 2 * cfg.election.check_interval_ms);
  CHECK(sim.violation() == "");
  CHECK(sim.agreed());
  CHECK(sim.coordinator_of(sim.live().front()) == coord);
}

} // namespace

TEST_CASE("bully: safe and live across coordinator crashes",
          "[election][bully]") {
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed)
    crash_and_recover("bully", seed);
}

TEST_CASE("ring: safe and live across coordinator crashes and loss",
          "[election][ring]") {
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed)
    crash_and_recover("ring", seed);
}

TEST_CASE("hs: safe and live across coordinator crashes and loss",
          "[election][hs]") {
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed)
    crash_and_recover("hs", seed);
}

TEST_CASE("invitation: safe and live across coordinator crashes and loss",
          "[election][invitation]") {
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed)
    crash_and_recover("invitation", seed);
}

TEST_CASE("echo: the best capacity wins across crashes and loss",
          "[election][echo]") {
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed)
    crash_and_recover("echo", seed);
}

TEST_CASE("invitation: three partitions give three groups, healing one",
          "[election][invitation]") {
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed) {
    std::mt19937_64 rng{seed};
    election_sim_config cfg;
    cfg.algorithm = "invitation";
    cfg.seed = seed;
    cfg.nodes = 3 + rng() % (max_nodes() + 1);
    link_faults calm{0, 0.02, 1, 10};
    cfg.faults = calm;
    maybe_trace(cfg);
    election_sim sim{cfg};
    auto bound = liveness_bound("invitation", cfg.nodes, cfg.election);
    CAPTURE(seed, cfg.nodes, bound);
    REQUIRE(sim.run_until_agreed(bound));

    // Three non-empty sides, nodes dealt at random.
    auto ids = sim.ids();
    std::shuffle(ids.begin(), ids.end(), rng);
    std::vector<std::vector<std::string>> sides(3);
    for (std::size_t i = 0; i < ids.size(); ++i)
      sides[i < 3 ? i : rng() % 3].push_back(ids[i]);
    sim.run_until(sim.now() + static_cast<millis>(rng() % 1000));
    sim.set_faults({0.03, 0.02, 1, 10});
    sim.partition(sides);
    sim.run_until(sim.now() + static_cast<millis>(rng() % 1000));
    sim.set_faults(calm);
    REQUIRE(sim.run_until_agreed(sim.now() + bound));
    REQUIRE(sim.violation() == "");
    auto comps = sim.components();
    REQUIRE(comps.size() == 3);
    std::set<std::string> groups;
    for (const auto& comp : comps) {
      auto c = sim.coordinator_of(comp.front());
      REQUIRE(c);
      CHECK(std::count(comp.begin(), comp.end(), *c) == 1);
      groups.insert(sim.node(comp.front()).group());
    }
    CHECK(groups.size() == 3);

    sim.heal();
    REQUIRE(sim.run_until_agreed(sim.now() + bound));
    REQUIRE(sim.violation() == "");
    REQUIRE(sim.components().size() == 1);
    auto g = sim.node(sim.ids().front()).group();
    for (const auto& id : sim.ids())
      CHECK(sim.node(id).group() == g);
    sim.run_until(sim.now() + 2 * cfg.election.check_interval_ms);
    CHECK(sim.agreed());
    CHECK(sim.violation() == "");
  }
}
