// The four algorithms step by step on a perfect network: who enters, in what
// order, and what an entry costs in messages (the seed's figures).
#include <catch2/catch.hpp>

#include <string>

#include "simulation/mutex_sim.hpp"
#include "mutex/voting.hpp"

using namespace dice;

namespace {

/// Messages per entry on a quiet network, one resource, busy nodes.
double messages_per_entry(const std::string& algorithm, std::size_t n) {
  mutex_sim_config cfg;
  cfg.algorithm = algorithm;
  cfg.nodes = n;
  cfg.resources = 1;
  cfg.think_ms = 100;
  cfg.hold_ms = 5;
  cfg.faults = link_faults{0, 0, 1, 2};
  mutex_sim sim(cfg);
  sim.run_until(20'000);
  REQUIRE(sim.violation() == "");
  REQUIRE(sim.entries() > 0);
  return static_cast<double>(sim.messages()) / static_cast<double>(sim.entries());
}

} // namespace

TEST_CASE("Ricart-Agrawala costs 2(n-1) messages an entry", "[mutex]") {
  for (std::size_t n : {3, 5, 8}) {
    auto m = messages_per_entry("ricart-agrawala", n);
    INFO(n << " nodes: " << m);
    CHECK(m == Approx(2.0 * static_cast<double>(n - 1)).epsilon(0.05));
  }
}

TEST_CASE("central costs request, grant, release and the release's "
          "acknowledgement, whatever the cluster size", "[mutex]") {
  for (std::size_t n : {3, 8}) {
    auto m = messages_per_entry("central", n);
    INFO(n << " nodes: " << m);
    // 4 messages an entry, but the coordinator's own entries (1 in n) cost
    // none.
    auto nodes = static_cast<double>(n);
    CHECK(m == Approx(4.0 * (nodes - 1) / nodes).epsilon(0.05));
  }
}

TEST_CASE("a single node enters at once with every algorithm", "[mutex]") {
  for (const auto& a : mutex_algorithms()) {
    auto cfg = mutex_sim_config::fresh_cluster();
    auto m = make_mutex(a, "solo", cfg);
    m->on_view({"solo"}, 0);
    m->on_coordinator("solo", 0);
    m->request("db", 1);
    // Token ring makes its first token after the loss timeout.
    for (millis t = 1; t < 5000 && !m->holds("db"); ++t)
      if (auto d = m->next_deadline(); d && *d <= t)
        m->tick(t);
    INFO(a);
    CHECK(m->holds("db"));
    CHECK(m->take_granted() == std::vector<std::string>{"db"});
    m->release("db", 300);
    CHECK_FALSE(m->holds("db"));
  }
}

TEST_CASE("voting: a node that has seen too few members cannot make a "
          "majority when voters is set", "[mutex]") {
  auto cfg = mutex_sim_config::fresh_cluster();
  cfg.voters = 3;
  voting_mutex m("a", cfg);
  m.on_view({"a"}, 0);
  CHECK(m.quorum() == 2);
  m.request("db", 0);
  m.tick(500);
  CHECK_FALSE(m.holds("db"));
}

TEST_CASE("voting: a holder cut off from its voters lets go after the lease, "
          "before any voter gives the vote away", "[mutex]") {
  mutex_sim_config cfg;
  cfg.algorithm = "voting";
  cfg.nodes = 3;
  cfg.resources = 1;
  cfg.hold_ms = 60'000; // holders stay inside until they lose the lock
  cfg.faults = link_faults{0, 0, 1, 2};
  mutex_sim sim(cfg);
  sim.run_until(1000);
  std::string holder;
  for (const auto& id : sim.ids())
    if (sim.node(id).holds("r0"))
      holder = id;
  REQUIRE(holder != "");
  std::vector<std::string> rest;
  for (const auto& id : sim.ids())
    if (id != holder)
      rest.push_back(id);
  sim.partition({{holder}, rest});
  sim.run_until(1000 + cfg.mutex.lease_ms + 10);
  CHECK_FALSE(sim.node(holder).holds("r0"));
  CHECK(sim.lost() == 1);
  sim.run_until(1000 + cfg.mutex.reclaim_ms + 2000);
  CHECK(sim.violation() == "");
  bool other_holds = false;
  for (const auto& id : rest)
    other_holds = other_holds || sim.node(id).holds("r0");
  CHECK(other_holds);
}
