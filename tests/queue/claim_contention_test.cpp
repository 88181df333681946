#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "simulation/lockstep.hpp"
#include "ready_queue/claim_matching.hpp"

using namespace dice;
using namespace dice::test;

namespace {

std::uint64_t total_claims(lockstep& net) {
  std::uint64_t n = 0;
  for (auto& node : net.nodes)
    n += node->counters().claims;
  return n;
}

} // namespace

TEST_CASE("idle nodes that know each other stagger their claims: one claim "
          "per task instead of one per node",
          "[queue]") {
  auto claims_for = [](millis stagger) {
    queue_config cfg;
    cfg.claim_stagger_ms = stagger;
    lockstep net;
    for (int i = 0; i < 8; ++i)
      net.add("n" + std::to_string(i), cfg);
    net.versions_every_ms = 100;
    net.run_for(250); // every node has heard every other: 8 idle nodes
    for (int t = 0; t < 3; ++t)
      net.at("n0").submit(spec_of("t" + std::to_string(t)), net.now);
    net.flush();
    net.run_for(3000);
    for (int t = 0; t < 3; ++t) {
      auto id = "t" + std::to_string(t);
      CAPTURE(id);
      CHECK(net.starts_of(id) == 1);
      CHECK(phase_on(net.at("n5"), id) == wire::DONE);
    }
    return total_claims(net);
  };
  CHECK(claims_for(queue_config{}.claim_stagger_ms) == 3);
  // Without staggering every idle node claims in the same tick, with each
  // of its seats (its slot and its prefetch).
  CHECK(claims_for(0) == 8 * (queue_config{}.slots + queue_config{}.prefetch));
}

TEST_CASE("a losing claimer that cannot hear the winner is told by other "
          "nodes before its window ends",
          "[queue]") {
  auto starts_with_helpers = [](std::size_t helpers) {
    queue_config cfg;
    cfg.claim_helpers = helpers;
    lockstep net;
    net.add("a", cfg);
    net.add("b", cfg);
    net.add("c", cfg);
    net.at("a").submit(spec_of("t"), net.now); // a's claim wins: enqueuer
    net.flush();
    // From now on nothing from a reaches b: neither a's claim nor its
    // answer to b's.
    net.drop = [](auto& from, auto& to, auto&) {
      return from == "a" && to == "b";
    };
    net.step(); // all three claim in the same tick
    REQUIRE(total_claims(net) == 3);
    // Past every claim window, before a's execution ends (and long before
    // b, deaf to a, would take a for dead).
    net.run_for(queue_config{}.claim_window_ms * 3);
    return net.starts_of("t");
  };
  // Alone, a cannot stop b: b executes too.
  CHECK(starts_with_helpers(0) == 2);
  // c knows a's better claim and tells b.
  CHECK(starts_with_helpers(3) == 1);
}

TEST_CASE("a burst of tasks on idle nodes: each node claims a different "
          "task at once, none waits a stagger and no claim loses",
          "[queue]") {
  queue_config cfg;
  lockstep net;
  for (int i = 0; i < 16; ++i)
    net.add("n" + std::to_string(i), cfg);
  net.versions_every_ms = 100;
  net.run_for(250); // every node has heard every other: 16 idle nodes
  const millis submitted = net.now;
  for (int t = 0; t < 16; ++t)
    net.at("n0").submit(spec_of("t" + std::to_string(t)), net.now);
  net.flush();
  net.run_for(cfg.claim_window_ms + 50);
  REQUIRE(net.started.size() == 16);
  std::set<std::string> runners;
  for (const auto& s : net.started) {
    CAPTURE(s.task_id, s.node);
    runners.insert(s.node);
    // Started when the matched claim window ended, not staggered behind it.
    CHECK(s.ends - net.task_ms - submitted
          <= cfg.matched_claim_window_ms + 2);
  }
  CHECK(runners.size() == 16); // one task per node
  CHECK(total_claims(net) == 16);
}

TEST_CASE("a task matched to a node that went silent is claimed by "
          "another after the stagger",
          "[queue]") {
  queue_config cfg;
  lockstep net;
  std::map<std::string, std::size_t> free;
  for (int i = 0; i < 4; ++i) {
    net.add("n" + std::to_string(i), cfg);
    free["n" + std::to_string(i)] = 1;
  }
  net.versions_every_ms = 100;
  net.run_for(250);
  // n3 goes silent, unnoticed yet; pick a task the matching gives to n3.
  net.down = {"n3"};
  std::string id;
  for (int t = 0; id.empty() && t < 1000; ++t)
    if (!match_claims({{"t" + std::to_string(t)}}, free, "n3").empty())
      id = "t" + std::to_string(t);
  REQUIRE(!id.empty());
  const millis submitted = net.now;
  net.at("n0").submit(spec_of(id), net.now);
  net.flush();
  net.run_for(1000);
  CAPTURE(id);
  REQUIRE(net.starts_of(id) == 1);
  CHECK(phase_on(net.at("n0"), id) == wire::DONE);
  // Nobody claimed at once: the others waited their stagger first.
  const auto& s = net.started.front();
  CHECK(s.node != "n3");
  CHECK(s.ends - net.task_ms - submitted
        >= cfg.claim_window_ms + cfg.claim_stagger_ms);
}
