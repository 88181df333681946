// The replicated queue across real processes: work submitted through the
// dice CLI survives a node killed mid-run, and a restarted node catches up.
#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;

namespace {

std::size_t done_count(const node_process& n) {
  auto s = n.stats();
  return s ? (*s)["tasks"]["done"].get<std::size_t>() : 0;
}

std::size_t alive_in_all(cluster& c, std::size_t expected) {
  std::size_t ok = 0;
  for (auto& n : c.nodes())
    ok += n->alive_count() == expected ? 1 : 0;
  return ok;
}

} // namespace

TEST_CASE("128 tasks survive a node killed mid-run and a restart catches up",
          "[process][queue]") {
  cluster c;
  auto& n1 = c.start(c.make_spec("q-1"));
  for (auto id : {"q-2", "q-3", "q-4"}) {
    auto spec = c.make_spec(id);
    spec.peers = {n1.spec().udp_addr()};
    c.start(spec);
  }
  REQUIRE(wait_until([&] { return alive_in_all(c, 4) == 4; }, millis(5000)));

  const std::size_t tasks = 128;
  auto url = "http://" + loopback(n1.spec().http_port);
  process cli(DICE_CLI_BIN,
              {"--node", url, "--json", "submit", "sleep", "100", "--count",
               std::to_string(tasks), "--wait", "--timeout", "120"},
              c.dir().file("cli.log"));

  // Kill a node that is not the one the CLI talks to, once work is flowing.
  auto& victim = c[2];
  auto victim_spec = victim.spec();
  REQUIRE(wait_until([&] { return done_count(n1) >= 16; }, millis(30000)));
  victim.proc().kill_now();

  auto code = cli.wait_exit(millis(120000));
  INFO("dice CLI output:\n" << cli.log() << "\nnode logs:\n" << c.logs());
  REQUIRE(code);
  CHECK(*code == 0);
  auto summary = last_json_line(cli.log());
  REQUIRE_FALSE(summary.is_discarded());
  CHECK(summary["done"] == tasks);
  CHECK(summary["ok"] == true);
  auto ids = summary["ids"].get<std::vector<std::string>>();
  REQUIRE(ids.size() == tasks);

  // Every survivor holds every task as done, with its result.
  for (std::size_t i : {0, 1, 3}) {
    auto& n = c[i];
    CHECK(wait_until([&] { return done_count(n) == tasks; }, millis(5000)));
    for (auto& id : ids) {
      auto t = get_json(n.spec().http_port, "/tasks/" + id);
      REQUIRE(t);
      CHECK((*t)["state"] == "done");
      CHECK((*t)["result"] == "slept 100");
    }
  }

  // The killed node, restarted empty, rejoins and catches up.
  auto& back = c.start(victim_spec);
  CHECK(wait_until([&] { return done_count(back) == tasks; }, millis(15000)));
  CHECK(wait_until([&] { return back.alive_count() == 4; }, millis(5000)));
}

TEST_CASE("GET /tasks?ids= answers for the tasks named, and refuses a bad list",
          "[process][queue]") {
  cluster c;
  auto& n = c.start(c.make_spec("ids-1"));
  auto url = "http://" + loopback(n.spec().http_port);
  process cli(DICE_CLI_BIN,
              {"--node", url, "--json", "submit", "echo", "hi", "--count", "3",
               "--wait", "--timeout", "30"},
              c.dir().file("cli.log"));
  auto code = cli.wait_exit(millis(40000));
  INFO("dice CLI output:\n" << cli.log() << "\nnode logs:\n" << c.logs());
  REQUIRE(code);
  REQUIRE(*code == 0);
  auto summary = last_json_line(cli.log());
  REQUIRE_FALSE(summary.is_discarded());
  auto ids = summary["ids"].get<std::vector<std::string>>();
  REQUIRE(ids.size() == 3);

  auto two = get_json(n.spec().http_port, "/tasks?ids=" + ids[2] + "," + ids[0]);
  REQUIRE(two);
  REQUIRE((*two)["tasks"].size() == 2);
  CHECK((*two)["tasks"][0]["id"] == ids[2]);
  CHECK((*two)["tasks"][1]["id"] == ids[0]);
  CHECK((*two)["tasks"][0]["state"] == "done");

  auto none_ready = get_json(n.spec().http_port, "/tasks?state=ready&ids=" + ids[1]);
  REQUIRE(none_ready);
  CHECK((*none_ready)["tasks"].empty());

  auto unknown = get_json(n.spec().http_port, "/tasks?ids=no-such-task");
  REQUIRE(unknown);
  CHECK((*unknown)["tasks"].empty());

  auto bad = http_get(n.spec().http_port, "/tasks?ids=,");
  CHECK(bad.status == 400);
  REQUIRE(bad.json());
  CHECK(bad.json()->contains("error"));

  auto stats = n.stats();
  REQUIRE(stats);
  CHECK((*stats)["tasks"]["done"] == 3);
  CHECK((*stats)["tasks"]["total"] == 3);
  CHECK((*stats)["http"]["bad_requests"] == 1);
}

namespace {

std::uint64_t prefetch_now(const node_process& n) {
  auto s = n.stats();
  return s ? (*s)["queue"]["prefetch"].get<std::uint64_t>() : 0;
}

} // namespace

TEST_CASE("under --prefetch auto, the default, a node claims 4 tasks ahead "
          "while its executions take a few ms and 1 once they take 150 ms",
          "[process][queue][prefetch]") {
  cluster c;
  auto spec = c.make_spec("prefetch-1");
  spec.extra_args = {"--slots", "1"};
  auto& n = c.start(spec);
  CHECK(prefetch_now(n) == 1);
  auto noop = dice_cli(c, n, {"submit", "echo", "", "--count", "100", "--wait",
                              "--timeout", "60"},
                       "cli-echo.log", millis(70000));
  INFO("dice submit:\n" << noop.output << "\nnode logs:\n" << c.logs());
  REQUIRE(noop.code == 0);
  CHECK(prefetch_now(n) == 4);
  auto slow = dice_cli(c, n, {"submit", "sleep", "150", "--count", "3",
                              "--wait", "--timeout", "60"},
                       "cli-sleep.log", millis(70000));
  REQUIRE(slow.code == 0);
  CHECK(prefetch_now(n) == 1);
  auto stats = n.stats();
  REQUIRE(stats);
  CHECK((*stats)["tasks"]["done"] == 103);
}
