#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "common/tick_schedule.hpp"

using namespace dice;

TEST_CASE("a tick is scheduled for the machine's deadline, no sooner than "
          "the gap after the last, and only if earlier than the one on its "
          "way", "[queue][tick]") {
  tick_schedule s(10);
  CHECK_FALSE(s.arm(std::nullopt, 0)); // nothing due: no timer
  auto t = s.arm(1'000, 0);
  REQUIRE(t);
  CHECK(t->delay == 1'000);
  CHECK_FALSE(s.arm(1'500, 100)); // the scheduled one comes sooner
  auto earlier = s.arm(200, 100);  // an earlier deadline: a new timer
  REQUIRE(earlier);
  CHECK(earlier->delay == 100);
  CHECK(s.fire(earlier->seq, 200));
  auto next = s.arm(200, 200); // due again at once: the gap holds it back
  REQUIRE(next);
  CHECK(next->delay == 10);
}

TEST_CASE("a timer made stale by an earlier one runs nothing and schedules "
          "nothing, or serves a later deadline it comes in time for",
          "[queue][tick]") {
  tick_schedule s(10);
  auto late = s.arm(1'000, 0);
  auto soon = s.arm(50, 0);
  REQUIRE(late);
  REQUIRE(soon);
  CHECK(s.in_flight() == 2);
  CHECK(s.fire(soon->seq, 50));
  // Due at 900: the superseded timer comes too late for it, a new one goes.
  auto at900 = s.arm(900, 50);
  REQUIRE(at900);
  CHECK_FALSE(s.fire(late->seq, 1'000)); // superseded: nothing runs
  CHECK(s.fire(at900->seq, 1'000));
  // Due at 2000 while a superseded timer comes at 1500: it serves, no new
  // timer is sent, and it is the one that runs.
  auto t1500 = s.arm(1'500, 1'000);
  auto t1200 = s.arm(1'200, 1'000);
  REQUIRE(t1500);
  REQUIRE(t1200);
  CHECK(s.fire(t1200->seq, 1'200));
  CHECK_FALSE(s.arm(2'000, 1'200));
  CHECK(s.in_flight() == 1);
  CHECK(s.fire(t1500->seq, 1'500));
  CHECK(s.in_flight() == 0);
  // A timer from before any schedule (the first tick) runs when none is on
  // its way, and a set-back clock changes nothing: numbers decide.
  CHECK(s.fire(tick_schedule::unscheduled, 0));
}

// The coordinator's pattern: its stable point is always a second away,
// while inputs keep bringing nearer deadlines. Ticks in flight (timer
// messages sent and not yet back) must stay few, and the machine must
// tick no more often than its deadlines and the gap ask.
TEST_CASE("under endless re-arms, timers in flight stay few and every "
          "deadline is met", "[queue][tick]") {
  auto seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  tick_schedule s(10);
  std::multimap<millis, std::uint64_t> in_flight; // arrival -> seq
  millis stable_point = 1'000, ack_due = -1;
  std::size_t most_in_flight = 0, ticks = 0;
  auto due = [&]() -> std::optional<millis> {
    return ack_due >= 0 ? std::min(ack_due, stable_point) : stable_point;
  };
  auto arm = [&](millis now) {
    if (auto t = s.arm(due(), now))
      in_flight.emplace(now + t->delay, t->seq);
    most_in_flight = std::max(most_in_flight, in_flight.size());
  };
  arm(0);
  for (millis now = 1; now <= 60'000; ++now) {
    // Inputs: about one per ms in bursts, half of them want an ack soon.
    if (rng() % 4 == 0) {
      if (rng() % 2 == 0 && ack_due < 0)
        ack_due = now;
      arm(now);
    }
    while (!in_flight.empty() && in_flight.begin()->first <= now) {
      auto seq = in_flight.begin()->second;
      in_flight.erase(in_flight.begin());
      if (!s.fire(seq, now))
        continue;
      ++ticks;
      if (ack_due >= 0 && ack_due <= now)
        ack_due = -1;
      if (stable_point <= now)
        stable_point = now + 1'000;
      arm(now);
    }
    // No deadline left behind: a tick is always on its way for it.
    REQUIRE_FALSE(in_flight.empty());
    REQUIRE(stable_point > now - 20);
  }
  CHECK(most_in_flight <= 3);
  // At most one tick per 10 ms gap.
  CHECK(ticks <= 6'000);
  CHECK(ticks >= 60);
}
