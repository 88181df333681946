// Schedules: cron fields, ticks every node derives alike, and which node
// enqueues a tick when.
#include <catch2/catch.hpp>

#include "known_tasks/schedules.hpp"

using namespace dice;
using Catch::Matchers::Contains;

namespace {

constexpr millis minute = 60'000;
// 2026-11-27T00:00:00Z, a Friday.
constexpr millis friday = 1'795'737'600'000;

wire::ScheduleSpec every(millis ms, std::uint32_t catch_up = 0, millis created = 0) {
  wire::ScheduleSpec s;
  s.set_name("s");
  s.set_every_ms(ms);
  s.set_catch_up(catch_up);
  s.set_created_ms(created);
  s.mutable_task()->set_kind("echo");
  return s;
}

} // namespace

TEST_CASE("cron fields give the next matching minute in UTC", "[schedules]") {
  std::string err;
  auto at = [&](const std::string& expr, millis after) {
    auto c = parse_cron(expr, err);
    INFO(err);
    REQUIRE(c);
    auto t = next_cron(*c, after);
    REQUIRE(t);
    return *t;
  };
  CHECK(at("* * * * *", friday) == friday + minute);
  CHECK(at("*/5 * * * *", friday + 1) == friday + 5 * minute);
  CHECK(at("30 2 * * *", friday) == friday + (2 * 60 + 30) * minute);
  CHECK(at("0 0 * * 1", friday) == friday + 3 * 86'400'000); // next Monday
  CHECK(at("0 0 * * 7", friday) == friday + 2 * 86'400'000); // 7 is Sunday
  CHECK(at("0 9-17/4 * * *", friday) == friday + 9 * 60 * minute);
  CHECK(at("0 0 1 1 *", friday) == 1'798'761'600'000); // 2027-01-01
  for (auto bad : {"* * * *", "60 * * * *", "* 24 * * *", "*/0 * * * *", "a * * * *",
                   "5-1 * * * *", "* * 0 * *"}) {
    CHECK_FALSE(parse_cron(bad, err));
    CHECK_THAT(err, Contains("cron"));
  }
}

TEST_CASE("a schedule's ticks, jitter and record are the same on every node",
          "[schedules]") {
  auto s = every(30'000);
  CHECK(next_tick(s, friday) == friday + 30'000);
  CHECK(next_tick(s, friday + 29'999) == friday + 30'000);
  s.set_jitter_ms(5000);
  auto j = tick_jitter(s, friday);
  CHECK(j >= 0);
  CHECK(j < 5000);
  CHECK(tick_jitter(s, friday) == j);
  auto t1 = tick_task(s, friday);
  auto t2 = tick_task(s, friday);
  CHECK(t1.id() == t2.id());
  CHECK(t1.id() != tick_task(s, friday + 30'000).id());
  CHECK(t1.scheduled_by() == "s");
  CHECK(t1.kind() == "echo");
  CHECK(schedule_record_id("s") != t1.id());
  CHECK_THAT(schedule_problem(every(50)), Contains("'every_ms' must be from 100"));
  auto both = every(1000);
  both.set_cron("* * * * *");
  CHECK_THAT(schedule_problem(both), Contains("one of them"));
}

TEST_CASE("the first node by rank enqueues a tick on time: the next one a "
          "stagger later, only if it has not heard of it",
          "[schedules]") {
  std::vector<std::string> live{"a", "b", "c"};
  std::vector<schedule_ticker> nodes;
  for (const auto& n : live) {
    nodes.emplace_back(n, 1000, 10'000);
    nodes.back().members(live);
    nodes.back().add(every(5000, 0, friday), friday);
  }
  millis tick = friday + 5000;
  std::vector<std::size_t> on_time;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!nodes[i].due(tick).empty())
      on_time.push_back(i);
  REQUIRE(on_time.size() == 1); // exactly one node's turn at the tick
  // The others heard of it: nothing more, ever, for that tick.
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (i != on_time[0]) {
      nodes[i].seen("s", tick);
      CHECK(nodes[i].due(tick + 3000).empty());
    }
  // Had it died, the second in rank enqueues the tick a stagger later.
  std::vector<schedule_ticker> rest;
  for (const auto& n : live) {
    rest.emplace_back(n, 1000, 10'000);
    rest.back().members(live);
    rest.back().add(every(5000, 0, friday), friday);
  }
  std::size_t late = 0;
  for (std::size_t i = 0; i < rest.size(); ++i)
    if (i != on_time[0]) {
      CHECK(rest[i].due(tick).empty());
      late += rest[i].due(tick + 1000).size();
    }
  CHECK(late == 1);
}

TEST_CASE("ticks missed while no node ran: the latest, none or all", "[schedules]") {
  // Created an hour ago, every minute; the node starts now.
  millis now = friday + 60 * minute + 30'000;
  auto due_at_start = [&](std::uint32_t catch_up) {
    schedule_ticker t("a", 1000, 10'000);
    t.add(every(minute, catch_up, friday), now);
    return t.due(now);
  };
  auto last = due_at_start(0);
  REQUIRE(last.size() == 1);
  CHECK(last[0].tick == friday + 60 * minute);
  CHECK(due_at_start(1).empty());
  CHECK(due_at_start(2).size() == 60);
  // A tick enqueued by this node or heard of is not due again.
  schedule_ticker t("a", 1000, 10'000);
  t.add(every(minute, 0, friday), now);
  t.seen("s", friday + 60 * minute);
  CHECK(t.due(now).empty());
  CHECK(t.next_due() == friday + 61 * minute);
  t.remove("s");
  CHECK_FALSE(t.next_due());
}

TEST_CASE("a node that comes to hold a schedule late holds back the ticks due "
          "before, so it does not enqueue again those its peers enqueued",
          "[schedules]") {
  // Every second since `friday`; this node (restarted, its replica empty)
  // learns the schedule's record at +7.5 s, before the ticks' tasks.
  const millis learned = friday + 7500;
  schedule_ticker t("a", 1000, 10'000, 2000);
  t.add(every(1000, 0, friday), learned);
  CHECK(t.due(learned).empty());
  CHECK(t.due(learned + 1999).empty());
  // Meanwhile it hears of the ticks its peers enqueued, up to +6 s: after
  // the hold it enqueues only the one it has not heard of, and the next.
  t.seen("s", friday + 6000);
  std::vector<millis> ticks;
  for (const auto& d : t.due(learned + 2000))
    ticks.push_back(d.tick);
  CHECK(ticks == std::vector<millis>{friday + 7000, friday + 8000, friday + 9000});
  // Missed or not is judged when the node came to hold the schedule, not
  // after the hold: with catch_up none, the ticks older than late_ms then
  // are passed over, and the younger ones enqueued after the hold.
  schedule_ticker none("a", 1000, 10'000, 2000);
  none.add(every(1000, 1, friday), friday + 12'500);
  ticks.clear();
  for (const auto& d : none.due(friday + 14'500))
    ticks.push_back(d.tick);
  CHECK(ticks.front() == friday + 3000);
  CHECK(ticks.back() == friday + 14'000);
}
