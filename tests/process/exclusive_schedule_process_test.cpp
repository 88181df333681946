// An exclusive schedule across real processes: its ticks hold one
// cluster-wide lock, so no two runs overlap and no tick runs twice, while
// the same schedule without --exclusive overlaps its runs.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <thread>

#include "cluster.hpp"

using namespace dice::test;

namespace {

// A shell tick that takes `seconds`, longer than its 1 s period, and
// writes "start TIME" and "end TIME" lines to `log`.
std::string tick_program(const std::string& log, const std::string& seconds) {
  nlohmann::json argv = {"/bin/sh", "-c",
                         "echo start $(date +%s.%N) >> " + log + "; sleep " + seconds
                           + "; echo end $(date +%s.%N) >> " + log};
  return argv.dump();
}

bool starts(const std::string& line) {
  return line.rfind("start", 0) == 0;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  return lines;
}

// The most runs under way at once, from the start and end lines.
int most_at_once(const std::vector<std::string>& lines) {
  int now = 0, most = 0;
  for (const auto& l : lines) {
    now += starts(l) ? 1 : -1;
    most = std::max(most, now);
  }
  return most;
}

// The schedule's tick tasks `n` holds, by state.
std::map<std::string, int> tick_states(node_process& n, const std::string& schedule) {
  std::map<std::string, int> by_state;
  auto list = n.get_json("/tasks?kind=shell&limit=1000");
  if (!list)
    return by_state;
  for (const auto& t : (*list)["tasks"]) {
    auto d = n.get_json("/tasks/" + t["id"].get<std::string>());
    if (d && d->value("schedule", "") == schedule)
      ++by_state[d->value("state", "")];
  }
  return by_state;
}

} // namespace

TEST_CASE("an exclusive schedule on three nodes never runs two ticks at once "
          "and runs each tick once, while a plain one overlaps",
          "[process][schedules]") {
  cluster c;
  auto ini = c.dir().write("sh.ini", "shell-allow = /bin/sh\n");
  auto specs = seeded_specs(c, {"ex-1", "ex-2", "ex-3"});
  for (auto& spec : specs)
    spec.extra_args = {"--config", ini, "--slots", "2"};
  auto nodes = c.start_formed(std::move(specs));
  auto exclusive_log = c.dir().file("exclusive.log");
  auto plain_log = c.dir().file("plain.log");
  auto add = dice_cli(c, *nodes[0], {"schedule", "add", "one-at-a-time", "--every", "1s",
                                     "--exclusive", "--", "shell",
                                     tick_program(exclusive_log, "1.5")}, "add.log");
  INFO("dice output:\n" << add.output);
  REQUIRE(add.code == 0);
  auto plain = dice_cli(c, *nodes[1], {"schedule", "add", "plain", "--every", "1s", "--",
                                       "shell", tick_program(plain_log, "2.5")}, "add-plain.log");
  REQUIRE(plain.code == 0);
  auto list = dice_cli(c, *nodes[2], {"schedule", "list"}, "list.log");
  CHECK_THAT(list.output, Catch::Matchers::Contains("one-at-a-time  every 1000 ms  exclusive"));

  std::this_thread::sleep_for(std::chrono::milliseconds(7000));
  CHECK(dice_cli(c, *nodes[2], {"schedule", "remove", "one-at-a-time"}, "rm.log").code == 0);
  CHECK(dice_cli(c, *nodes[0], {"schedule", "remove", "plain"}, "rm-plain.log").code == 0);
  // The ticks enqueued before the removal still run, one after another:
  // wait until every one is done.
  std::map<std::string, int> ticks;
  CHECK(wait_until([&] {
    ticks = tick_states(*nodes[0], "one-at-a-time");
    return ticks.size() == 1 && ticks.count("done") == 1;
  }, millis(20000), millis(300)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the last "end" line
  auto ex = lines_of(exclusive_log);
  auto pl = lines_of(plain_log);
  INFO("node logs:\n" << c.logs());
  auto runs = std::count_if(ex.begin(), ex.end(), starts);
  auto join = [](const std::vector<std::string>& ls) {
    std::string out;
    for (const auto& l : ls)
      out += l + "\n";
    return out;
  };
  INFO("exclusive runs:\n" << join(ex) << "plain runs:\n" << join(pl));
  // Runs of 1.5 s every second: one after another. Plain ones of 2.5 s
  // every second: two or three at once.
  CHECK(runs >= 4);
  CHECK(most_at_once(ex) == 1);
  CHECK(static_cast<long>(ex.size()) == 2 * runs); // each run ended
  CHECK(most_at_once(pl) >= 2); // ticks without the lock overlap
  // No tick ran twice: as many done tick tasks as runs.
  CHECK(ticks["done"] == runs);
}
