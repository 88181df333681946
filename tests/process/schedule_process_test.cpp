// Periodic schedules across real processes: a schedule every second on
// three nodes for 20 s gives one task per tick, and goes on, tick after
// tick, when the node that enqueued the last tick is killed half way.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <thread>

#include "cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;

namespace {

// The tick times of the schedule's tasks that `n` holds, and who
// enqueued each.
std::map<std::int64_t, std::string> ticks_at(node_process& n) {
  std::map<std::int64_t, std::string> ticks;
  auto list = n.get_json("/tasks?kind=echo&limit=1000");
  if (!list)
    return ticks;
  for (const auto& t : (*list)["tasks"]) {
    auto detail = n.get_json("/tasks/" + t["id"].get<std::string>());
    if (detail && detail->value("schedule", "") == "beat")
      ticks[(*detail)["tick_ms"].get<std::int64_t>()] = detail->value("enqueuer", "");
  }
  return ticks;
}

} // namespace

TEST_CASE("a schedule every second on three nodes for 20 s: one task per "
          "tick, and none lost when the node that enqueued the last tick is "
          "killed half way",
          "[process][schedules]") {
  // The schedule runs this long before the kill, and as long after it.
  const auto half = std::chrono::seconds(10);
  cluster c;
  auto specs = seeded_specs(c, {"sch-1", "sch-2", "sch-3"});
  for (auto& spec : specs)
    spec.extra_args = {"--slots", "1"};
  auto nodes = c.start_formed(std::move(specs));
  auto add = dice_cli(c, *nodes[0], {"schedule", "add", "beat", "--every", "1s", "--",
                                     "echo", "tick"}, "add.log");
  auto added = std::chrono::steady_clock::now();
  INFO("dice output:\n" << add.output);
  REQUIRE(add.code == 0);
  auto again = dice_cli(c, *nodes[1], {"schedule", "add", "beat", "--every", "1s", "--",
                                       "echo", "tick"}, "again.log");
  CHECK(again.code == 0);
  CHECK_THAT(again.output, Contains("exists already"));
  auto list = dice_cli(c, *nodes[2], {"schedule", "list"}, "list.log");
  CHECK_THAT(list.output, Contains("beat  every 1000 ms  echo tick"));

  std::this_thread::sleep_until(added + half);
  auto before = ticks_at(*nodes[0]);
  INFO("node logs:\n" << c.logs());
  REQUIRE(before.size() >= 8);
  // Kill the node that enqueued the latest tick; the others go on.
  auto victim_id = before.rbegin()->second;
  auto victim = std::find_if(nodes.begin(), nodes.end(),
                             [&](node_process* n) { return n->id() == victim_id; });
  REQUIRE(victim != nodes.end());
  (*victim)->proc().kill_now();
  nodes.erase(victim);
  std::this_thread::sleep_until(added + 2 * half);
  // Let the last ticks run and reach both survivors, which agree.
  std::map<std::int64_t, std::string> after;
  CHECK(wait_until([&] {
    after = ticks_at(*nodes[0]);
    return after == ticks_at(*nodes[1]);
  }, millis(5000)));
  REQUIRE(after.size() >= before.size() + 8);
  CHECK(after.size() >= 18); // 20 s of ticks, a start and a stagger aside
  // One task per tick: consecutive seconds, none missing, none twice
  // (one id per tick time), before and after the kill.
  std::int64_t prev = 0;
  for (const auto& [tick, by] : after) {
    if (prev != 0)
      CHECK(tick - prev == 1000);
    prev = tick;
  }
  auto tasks = nodes[0]->get_json("/tasks?kind=echo&state=done&limit=1000");
  REQUIRE(tasks);
  CHECK((*tasks)["tasks"].size() + 2 >= after.size()); // the newest may still run
  auto removed = dice_cli(c, *nodes[0], {"schedule", "remove", "beat"}, "rm.log");
  CHECK(removed.code == 0);
  auto gone = dice_cli(c, *nodes[1], {"schedule", "list"}, "list2.log");
  CHECK_THAT(gone.output, !Contains("beat"));
}
