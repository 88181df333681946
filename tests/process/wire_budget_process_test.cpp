// Every datagram stays within --bundle-bytes with real processes: a node
// that joins after the op log has moved on gets the replica by state
// transfer, in chunks of one frame each, and still catches up.
#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;

namespace {

std::uint64_t over_budget(const node_process& n) {
  auto s = n.stats();
  REQUIRE(s);
  return (*s)["wire"].value("sent_over_bundle_bytes", std::uint64_t{0});
}

std::uint64_t tasks_done(const node_process& n) {
  auto s = n.stats();
  return s ? (*s)["tasks"].value("done", std::uint64_t{0}) : 0;
}

} // namespace

TEST_CASE("a node joining a queue whose op log moved on catches up by "
          "snapshot with no datagram over --bundle-bytes",
          "[process][wire]") {
  cluster c;
  const std::vector<std::string> small_log = {"--op-log-limit", "32"};
  auto specs = seeded_specs(c, {"w-1", "w-2", "w-3"});
  for (auto& spec : specs) {
    spec.extra_args = small_log;
    c.start(spec);
  }
  REQUIRE(wait_until([&] { return c[0].alive_count() == 3
                                  && c[2].alive_count() == 3; },
                     millis(5000)));
  constexpr int tasks = 400;
  process cli(DICE_CLI_BIN,
              {"--node", "http://" + loopback(specs[1].http_port), "--json",
               "submit", "echo", std::string(200, 'p'), "--count",
               std::to_string(tasks), "--wait", "--timeout", "60"},
              c.dir().file("submit.log"));
  auto code = cli.wait_exit(millis(90000));
  INFO("dice submit:\n" << cli.log() << "\n" << c.logs());
  REQUIRE(code);
  REQUIRE(*code == 0);
  REQUIRE(wait_until([&] { return tasks_done(c[0]) == tasks; }, millis(10000)));

  // A newcomer with an empty data dir: the ops it lacks left every op log.
  auto late = c.make_spec("w-4");
  late.extra_args = small_log;
  late.peers = {specs.front().udp_addr()};
  auto& n4 = c.start(late);
  CHECK(wait_until([&] { return tasks_done(n4) == tasks; }, millis(20000)));
  auto s4 = n4.stats();
  REQUIRE(s4);
  INFO("w-4 stats: " << s4->dump());
  CHECK((*s4)["queue"].value("snapshots_applied", 0) >= 1);
  for (auto& n : c.nodes()) {
    auto s = n->stats();
    INFO("node " << n->id() << " over budget by body: "
         << (s ? (*s)["wire"]["over_bundle_bytes_by_body"].dump() : "?"));
    CHECK(over_budget(*n) == 0);
  }
}
