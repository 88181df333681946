#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "election/election.hpp"
#include "simulation/election_sim.hpp"

using namespace dice;

namespace {

election_sim_config quiet(const std::string& algorithm, std::size_t n) {
  election_sim_config c;
  c.algorithm = algorithm;
  c.nodes = n;
  c.faults = {0, 0, 1, 1}; // one hop = 1 ms, no faults
  return c;
}

} // namespace

TEST_CASE("make_election knows the five algorithms", "[election]") {
  for (const auto& name : election_algorithms()) {
    auto e = make_election(name, "a");
    CHECK(e->algorithm() == name);
    CHECK(e->state() == "down");
    CHECK_FALSE(e->coordinator());
  }
  CHECK_THROWS_AS(make_election("raft", "a"), std::invalid_argument);
  CHECK_THROWS_AS(make_election("bully", ""), std::invalid_argument);
  election_config bad;
  bad.answer_timeout_ms = 0;
  CHECK_THROWS_WITH(make_election("ring", "a", bad),
                    Catch::Contains("answer timeout"));
}

TEST_CASE("a lone node coordinates itself", "[election]") {
  for (const auto& name : election_algorithms()) {
    INFO(name);
    election_sim sim{quiet(name, 1)};
    REQUIRE(sim.run_until_agreed(5'000));
    CHECK(sim.coordinator_of("n000") == "n000");
  }
}

TEST_CASE("bully, ring and hs elect the highest id", "[election]") {
  for (const char* name : {"bully", "ring", "hs"}) {
    INFO(name);
    election_sim sim{quiet(name, 6)};
    REQUIRE(sim.run_until_agreed(10'000));
    CHECK(sim.coordinator_of("n000") == "n005");
    sim.crash("n005");
    REQUIRE(sim.run_until_agreed(sim.now() + 10'000));
    CHECK(sim.coordinator_of("n000") == "n004");
    sim.restart("n005"); // a higher member comes back and takes over
    REQUIRE(sim.run_until_agreed(sim.now() + 10'000));
    CHECK(sim.coordinator_of("n000") == "n005");
    CHECK(sim.violation().empty());
  }
}

TEST_CASE("Chang-Roberts from the highest node costs exactly 2N",
          "[election]") {
  election_sim sim{quiet("ring", 8)};
  REQUIRE(sim.run_until_agreed(10'000));
  auto before = sim.messages();
  sim.start_election("n007"); // N Election messages, then N Elected
  REQUIRE(sim.run_until_agreed(sim.now() + 10'000));
  CHECK(sim.messages() - before == 2 * 8);
  CHECK(sim.coordinator_of("n000") == "n007");
}

TEST_CASE("echo elects the best capacity, ties to the higher id",
          "[election]") {
  auto cfg = quiet("echo", 5);
  cfg.capacities = {40, 90, 10, 90, 30};
  election_sim sim{cfg};
  REQUIRE(sim.run_until_agreed(10'000));
  CHECK(sim.coordinator_of("n000") == "n003");
  sim.crash("n003");
  REQUIRE(sim.run_until_agreed(sim.now() + 10'000));
  CHECK(sim.coordinator_of("n000") == "n001");
}

TEST_CASE("echo with a small radio range still spans the cluster",
          "[election]") {
  auto cfg = quiet("echo", 12);
  cfg.election.echo_radius = 1; // a line of neighbours
  for (std::uint32_t i = 0; i < 12; ++i)
    cfg.capacities.push_back((i * 7) % 12);
  election_sim sim{cfg};
  REQUIRE(sim.run_until_agreed(20'000));
  CHECK(sim.coordinator_of("n000") == "n005"); // capacity 11
}

TEST_CASE("invitation names groups coordinator:counter and merges",
          "[election]") {
  election_sim sim{quiet("invitation", 4)};
  REQUIRE(sim.run_until_agreed(10'000));
  auto g = sim.node("n000").group();
  auto c = *sim.coordinator_of("n000");
  CHECK(g.rfind(c + ":", 0) == 0);
  for (const auto& id : sim.ids())
    CHECK(sim.node(id).group() == g);
  sim.partition({{"n000", "n001"}, {"n002", "n003"}});
  REQUIRE(sim.run_until_agreed(sim.now() + 10'000));
  CHECK(sim.node("n000").group() != sim.node("n002").group());
  sim.heal();
  REQUIRE(sim.run_until_agreed(sim.now() + 10'000));
  CHECK(sim.node("n000").group() == sim.node("n003").group());
  CHECK(sim.violation().empty());
}

TEST_CASE("election messages of another algorithm are ignored",
          "[election]") {
  auto e = make_election("bully", "b");
  e->on_view({"a", "b"}, 0);
  e->take_outbox();
  wire::Election m;
  m.set_algorithm("ring");
  m.set_kind("Election");
  m.set_candidate("z");
  e->on_message("a", m, 1);
  CHECK(e->ignored_messages() == 1);
  CHECK(e->take_outbox().empty());
}
