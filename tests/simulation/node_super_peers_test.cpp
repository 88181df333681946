// Super-peer relaying on production nodes (--super-peers): queue broadcasts
// go member -> super-peer -> other super-peers -> their members, on the
// simulated network, under loss, partitions and crashes; and when every
// super-peer dies at once, the survivors elect new ones and no task is lost.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>

#include "node_cases.hpp"
#include "simulation/actor_cluster.hpp"
#include "simulation/node_scenario.hpp"
#include "simulation/sweep_scenario.hpp"

using namespace dice;
using namespace dice::test;

namespace {

// The super-peers node `id` sees among the live nodes.
std::set<std::string> super_peers_seen_by(actor_cluster& c, const std::string& id) {
  std::set<std::string> out;
  for (const auto& row : c.view_of(id))
    if (row.super_peer && row.state != peer_state::dead)
      out.insert(row.id);
  return out;
}

} // namespace

TEST_CASE("60 seeded runs of 6 to 10 production nodes relaying through "
          "super-peers under loss, duplication, a partition and crashes: no "
          "accepted task lost, replicas equal",
          "[sim][node][super_peers]") {
  std::size_t tasks = 0, executions = 0, duplicates = 0;
  std::uint64_t first = 1, last = 60;
  if (const char* one = std::getenv("DICE_SUPER_PEER_SEED"))
    first = last = std::strtoull(one, nullptr, 10);
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    auto o = sweep_scenario(seed);
    o.nodes = 6 + seed % 5;
    o.tasks = 16 + seed % 9;
    o.super_peers = parse_super_peers(seed % 2 ? "auto" : "2");
    auto r = run_node_scenario(o);
    INFO("seed " << seed << " (replay: DICE_SUPER_PEER_SEED=" << seed
                 << "): " << r.summary());
    CHECK(r.violations.empty());
    CHECK(r.converged);
    CHECK(r.done + r.removed >= r.accepted);
    tasks += r.tasks;
    executions += r.executions;
    duplicates += r.duplicates;
  }
  std::cout << "super-peer sweep: tasks=" << tasks << " executions="
            << executions << " duplicates=" << duplicates << "\n";
}

TEST_CASE("every super-peer of 12 nodes dies at once under 10% loss: the "
          "survivors elect new ones and agree on them, every task submitted "
          "meanwhile is done everywhere, and the dead rejoin",
          "[sim][node][super_peers]") {
  actor_cluster_options opts;
  opts.seed = 7;
  opts.faults.loss = 0.1;
  opts.super_peers = parse_super_peers("3");
  actor_cluster c(opts);
  auto ids = start_nodes(c, 12, 3000);
  auto before = super_peers_seen_by(c, "n12");
  REQUIRE(before.size() == 3);
  for (const auto& id : ids)
    CHECK(super_peers_seen_by(c, id) == before);
  auto early = submit_each(c, "n12", 6, 100);

  for (const auto& sp : before)
    c.crash(sp);
  std::vector<std::string> members;
  for (const auto& id : ids)
    if (!before.count(id))
      members.push_back(id);
  // Submitted while their super-peers are dead and not yet found so.
  std::vector<std::string> late;
  for (std::size_t i = 0; i < members.size(); ++i) {
    auto t = c.submit(members[i], 100);
    REQUIRE(t);
    late.push_back(*t);
    c.step(50);
  }
  c.step(6000);
  auto after = super_peers_seen_by(c, members.front());
  CHECK(after.size() == 3);
  for (const auto& sp : after)
    CHECK_FALSE(before.count(sp));
  for (const auto& id : members)
    CHECK(super_peers_seen_by(c, id) == after);
  for (const auto& id : members)
    for (const auto& t : early)
      CHECK(row_of(c, id, t).state.phase() == wire::DONE);
  for (const auto& id : members)
    for (const auto& t : late) {
      CAPTURE(id, t);
      CHECK(row_of(c, id, t).state.phase() == wire::DONE);
    }
  check_converged(c);

  for (const auto& sp : before)
    c.restart(sp);
  c.step(8000);
  check_converged(c);
  CHECK(c.live_nodes().size() == 12);
}
