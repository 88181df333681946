// Retention across real processes: tasks that ended leave every replica
// after --keep-finished-ms, and a node restarted on a journal written
// before they ended, or a node that joins, holds none of them and runs
// none of them again.
#include <catch2/catch.hpp>

#include <thread>

#include <httplib.h>

#include "cluster.hpp"

using namespace dice::test;

namespace {

std::uint64_t held(const node_process& n) {
  auto s = n.stats();
  return s ? (*s)["tasks"]["total"].get<std::uint64_t>() : ~0ULL;
}

std::uint64_t forgotten(const node_process& n) {
  auto s = n.stats();
  return s ? (*s)["queue"]["tasks_forgotten"].get<std::uint64_t>() : 0;
}

std::uint64_t started(const node_process& n) {
  auto s = n.stats();
  return s ? (*s)["executions"]["started"].get<std::uint64_t>() : ~0ULL;
}

} // namespace

TEST_CASE("tasks that ended are forgotten after --keep-finished-ms, a node "
          "restarted on a journal from before their end, and a node that "
          "joins, hold none of them and run none again",
          "[process][retention]") {
  cluster c;
  std::vector<node_process*> nodes;
  auto specs = seeded_specs(c, {"kf-1", "kf-2"});
  for (auto& spec : specs) {
    spec.extra_args = {"--keep-finished-ms", "1000", "--slots", "1"};
    nodes.push_back(&c.start(spec));
  }
  REQUIRE(wait_until([&] { return nodes[0]->alive_count() == 2
                                  && nodes[1]->alive_count() == 2; },
                     millis(5000)));
  httplib::Client cli("127.0.0.1", nodes[0]->spec().http_port);
  auto res = cli.Post("/tasks", R"({"kind":"sleep","payload":"1500","count":6})",
                      "application/json");
  REQUIRE(res);
  REQUIRE(res->status == 201);
  auto ids = nlohmann::json::parse(res->body)["ids"].get<std::vector<std::string>>();

  // kf-2 goes down with the tasks unended in its journal.
  REQUIRE(wait_until([&] { return held(*nodes[1]) == 6; }, millis(5000)));
  auto down = nodes[1]->spec();
  nodes[1]->proc().kill_now();

  // kf-1 runs them all, then forgets them a second after each ended.
  INFO(c.logs());
  REQUIRE(wait_until([&] { return forgotten(*nodes[0]) == 6; }, millis(30000)));
  CHECK(held(*nodes[0]) == 0);
  CHECK(http_get(nodes[0]->spec().http_port, "/tasks/" + ids[0]).status == 404);

  // Restarted on its journal: it catches up before it claims, learns
  // they were forgotten, and drops them instead of running them again.
  auto& back = c.start(down);
  CHECK(wait_until([&] { return held(back) == 0; }, millis(10000)));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  CHECK(held(back) == 0);
  CHECK(started(back) == 0);
  CHECK(http_get(back.spec().http_port, "/tasks/" + ids[5]).status == 404);

  // A node that joins holds none of them either.
  auto joiner = c.make_spec("kf-3");
  joiner.peers = {nodes[0]->spec().udp_addr()};
  joiner.extra_args = {"--keep-finished-ms", "1000"};
  auto& third = c.start(joiner);
  REQUIRE(wait_until([&] { return third.alive_count() == 3; }, millis(5000)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  CHECK(held(third) == 0);

  // And the cluster still works: a new task runs, ends, is forgotten.
  res = cli.Post("/tasks", R"({"kind":"echo","payload":"after","keep_for_ms":0})",
                 "application/json");
  REQUIRE(res);
  CHECK(res->status == 201);
  CHECK(wait_until([&] { return forgotten(*nodes[0]) == 7 && held(back) == 0
                                && held(third) == 0; },
                   millis(10000)));
}
