// The election across real dice-node processes on 127.0.0.1: five nodes
// running bully agree on one coordinator; SIGKILL it, and every survivor
// reports the same new coordinator within 1 s of detecting the failure,
// while the new coordinator re-queues the task the killed one was running.
#include <chrono>
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;
using clock_type = std::chrono::steady_clock;

namespace {

/// The coordinator a node reports in the Normal state ("" otherwise).
std::string coordinator_of(const node_process& n) {
  auto e = get_json(n.spec().http_port, "/election");
  if (!e || (*e)["state"] != "normal" || !(*e)["coordinator"].is_string())
    return "";
  return (*e)["coordinator"].get<std::string>();
}

/// The one coordinator every listed node reports, or "" if they differ.
std::string agreed(const std::vector<node_process*>& nodes) {
  std::set<std::string> seen;
  for (auto* n : nodes)
    seen.insert(coordinator_of(*n));
  return seen.size() == 1 ? *seen.begin() : "";
}

std::vector<nlohmann::json> running_tasks(const node_process& n) {
  auto t = get_json(n.spec().http_port, "/tasks?state=running");
  if (!t)
    return {};
  return (*t)["tasks"].get<std::vector<nlohmann::json>>();
}

} // namespace

TEST_CASE("bully: five nodes, the coordinator SIGKILLed, every survivor "
          "agrees on the next one within 1 s of detecting it",
          "[process][election]") {
  cluster c;
  auto first = c.make_spec("e-1");
  first.extra_args = {"--election", "bully", "--slots", "1", "--prefetch", "0"}; // one task per node
  auto& n1 = c.start(first);
  for (auto id : {"e-2", "e-3", "e-4", "e-5"}) {
    auto spec = c.make_spec(id);
    spec.peers = {n1.spec().udp_addr()};
    spec.extra_args = {"--election", "bully", "--slots", "1", "--prefetch", "0"}; // one task per node
    c.start(spec);
  }
  std::vector<node_process*> all;
  for (auto& n : c.nodes())
    all.push_back(n.get());
  REQUIRE(wait_until([&] {
    for (auto* n : all)
      if (n->alive_count() != 5)
        return false;
    return true;
  }, millis(10000)));
  std::string coord;
  if (!wait_until([&] { return !(coord = agreed(all)).empty(); }, millis(10000)))
    FAIL("no agreement on one coordinator within 10 s\n" << c.logs());
  CHECK(coord == "e-5"); // bully: the highest id

  // The CLI shows the same, as text and as JSON.
  auto url = "http://" + loopback(n1.spec().http_port);
  {
    process text(DICE_CLI_BIN, {"--node", url, "leader"}, c.dir().file("leader.log"));
    REQUIRE(text.wait_exit(millis(5000)) == 0);
    CHECK(text.log().rfind("e-5 (bully, normal", 0) == 0);
    process json(DICE_CLI_BIN, {"--node", url, "leader", "--json"},
                 c.dir().file("leader-json.log"));
    REQUIRE(json.wait_exit(millis(5000)) == 0);
    auto body = nlohmann::json::parse(json.log(), nullptr, false);
    REQUIRE_FALSE(body.is_discarded());
    CHECK(body["coordinator"] == "e-5");
    CHECK(body["algorithm"] == "bully");
  }

  // Five long tasks, one slot per node: every node runs one, the
  // coordinator included.
  process cli(DICE_CLI_BIN,
              {"--node", url, "submit", "sleep", "60000", "--count", "5"},
              c.dir().file("cli.log"));
  REQUIRE(cli.wait_exit(millis(10000)) == 0);
  std::string victim_task;
  REQUIRE(wait_until([&] {
    auto rows = running_tasks(n1);
    std::set<std::string> runners;
    for (auto& t : rows) {
      runners.insert(t.value("node", ""));
      if (t.value("node", "") == coord)
        victim_task = t.value("id", "");
    }
    return runners.size() == 5;
  }, millis(10000)));
  REQUIRE_FALSE(victim_task.empty());

  auto victim = std::find_if(all.begin(), all.end(),
                             [&](auto* n) { return n->id() == coord; });
  REQUIRE(victim != all.end());
  std::vector<node_process*> survivors;
  for (auto* n : all)
    if (n != *victim)
      survivors.push_back(n);
  auto killed_at = clock_type::now();
  (*victim)->proc().kill_now();

  // Poll every survivor: when it first shows the victim dead, and when it
  // first reports a live coordinator (the same one everywhere).
  std::map<std::string, clock_type::time_point> detected, elected;
  std::map<std::string, std::string> reported;
  auto deadline = clock_type::now() + std::chrono::seconds(15);
  while (clock_type::now() < deadline
         && (detected.size() < survivors.size()
             || elected.size() < survivors.size())) {
    for (auto* n : survivors) {
      auto now = clock_type::now();
      if (!detected.count(n->id()) && n->state_of(coord) == "dead")
        detected[n->id()] = now;
      auto who = coordinator_of(*n);
      if (!elected.count(n->id()) && !who.empty() && who != coord) {
        elected[n->id()] = clock_type::now();
        reported[n->id()] = who;
      }
    }
  }
  INFO(c.logs());
  REQUIRE(detected.size() == survivors.size());
  REQUIRE(elected.size() == survivors.size());
  for (auto* n : survivors) {
    auto took = std::chrono::duration_cast<millis>(elected[n->id()]
                                                   - detected[n->id()]);
    CAPTURE(n->id(), took.count());
    // Reported for bench/README.md; the bound is the issue's.
    auto since_kill = [&](clock_type::time_point t) {
      return std::chrono::duration_cast<millis>(t - killed_at).count();
    };
    WARN(n->id() << ": coordinator " << reported[n->id()] << " "
                 << took.count() << " ms after detecting the failure (detected "
                 << since_kill(detected[n->id()]) << " ms, elected "
                 << since_kill(elected[n->id()]) << " ms after SIGKILL)");
    CHECK(took <= millis(1000));
    CHECK(reported[n->id()] == "e-4");
  }
  CHECK(agreed(survivors) == "e-4");

  // The new coordinator announced the recovery: the killed node's task is
  // back in the queue with the next attempt (every survivor is busy with
  // its own task, so it waits READY), and exactly one node recovered the
  // dead member.
  auto& next = **std::find_if(survivors.begin(), survivors.end(),
                              [](auto* n) { return n->id() == "e-4"; });
  CHECK(wait_until([&] {
    auto t = get_json(next.spec().http_port, "/tasks/" + victim_task);
    return t && (*t)["attempts"] == 2 && (*t)["state"] == "ready";
  }, millis(5000)));
  std::uint64_t recoveries = 0;
  for (auto* n : survivors) {
    auto s = n->stats();
    REQUIRE(s);
    recoveries += (*s)["queue"]["recoveries"].get<std::uint64_t>();
    if (n != &next)
      CHECK((*s)["queue"]["recoveries_heard"].get<std::uint64_t>() >= 1);
  }
  CHECK(recoveries == 1);
  CHECK(next.stats().value()["queue"]["recoveries"] == 1);
}
