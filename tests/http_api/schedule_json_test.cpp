// POST /schedules bodies and GET /schedules rows, without a server.
#include <catch2/catch.hpp>

#include "http_api/schedule_json.hpp"
#include "known_tasks/schedules.hpp"

using namespace dice;
using Catch::Matchers::Contains;

namespace {

std::optional<wire::TaskSpec> parse(const std::string& body, std::string& err) {
  return parse_schedule(body, {"echo", "sleep"}, 1'000'000, err);
}

} // namespace

TEST_CASE("a schedule's body becomes its replicated record", "[http][schedules]") {
  std::string err;
  auto r = parse(R"({"name": "beat", "every_ms": 30000, "jitter_ms": 500,
                     "catch_up": "all", "task": {"kind": "echo", "payload": "tick",
                     "retries": 2}})", err);
  INFO(err);
  REQUIRE(r);
  CHECK(r->id() == schedule_record_id("beat"));
  CHECK(r->kind() == "dice.schedule");
  const auto& s = r->schedule();
  CHECK(s.name() == "beat");
  CHECK(s.every_ms() == 30000);
  CHECK(s.jitter_ms() == 500);
  CHECK(s.catch_up() == 2);
  CHECK(s.created_ms() == 1'000'000);
  CHECK(s.task().kind() == "echo");
  CHECK(s.task().payload() == "tick");
  CHECK(s.task().max_attempts() == 3);
  CHECK(s.task().locks_size() == 0);
  CHECK_FALSE(is_exclusive(s));
  auto j = schedule_json(*r, 1'000'000);
  CHECK(j["exclusive"] == false);
  CHECK(j["every_ms"] == 30000);
  CHECK(j["catch_up"] == "all");
}

TEST_CASE("an exclusive schedule's ticks hold the lock schedule:NAME, beside "
          "the task's own locks",
          "[http][schedules]") {
  std::string err;
  auto r = parse(R"({"name": "invoices", "every_ms": 600000, "exclusive": true,
                     "task": {"kind": "echo", "payload": "x", "locks": ["db1"]}})", err);
  INFO(err);
  REQUIRE(r);
  const auto& s = r->schedule();
  CHECK(is_exclusive(s));
  std::vector<std::string> locks(s.task().locks().begin(), s.task().locks().end());
  CHECK(locks == std::vector<std::string>{"db1", "schedule:invoices"});
  auto tick = tick_task(s, 1'200'000);
  std::vector<std::string> tick_locks(tick.locks().begin(), tick.locks().end());
  CHECK(tick_locks == locks);
  CHECK(schedule_json(*r, 1'000'000)["exclusive"] == true);

  // "exclusive": false is a plain schedule.
  auto plain = parse(R"({"name": "p", "every_ms": 1000, "exclusive": false,
                         "task": {"kind": "echo", "payload": "x"}})", err);
  REQUIRE(plain);
  CHECK_FALSE(is_exclusive(plain->schedule()));
}

TEST_CASE("bad schedules are refused with the reason", "[http][schedules]") {
  std::string err;
  CHECK_FALSE(parse(R"({"name": "a", "every_ms": 1000, "exclusive": "yes",
                        "task": {"kind": "echo", "payload": "x"}})", err));
  CHECK_THAT(err, Contains("'exclusive' must be true or false"));
  // A name too long for its lock (a lock name is at most 64 bytes).
  CHECK_FALSE(parse(R"({"name": ")" + std::string(60, 'n')
                    + R"(", "every_ms": 1000, "exclusive": true,
                        "task": {"kind": "echo", "payload": "x"}})", err));
  CHECK_THAT(err, Contains("exclusive schedule's lock"));
  // The added lock counts toward a task's 16.
  std::string sixteen;
  for (int i = 0; i < 16; ++i)
    sixteen += std::string(i ? "," : "") + "\"l" + std::to_string(i) + "\"";
  CHECK_FALSE(parse(R"({"name": "a", "every_ms": 1000, "exclusive": true,
                        "task": {"kind": "echo", "payload": "x", "locks": [)"
                    + sixteen + "]}}", err));
  CHECK_THAT(err, Contains("an exclusive schedule adds one"));
  CHECK_FALSE(parse(R"({"name": "a", "every_ms": 1000, "often": true,
                        "task": {"kind": "echo", "payload": "x"}})", err));
  CHECK_THAT(err, Contains("unknown field 'often'"));
  CHECK_FALSE(parse(R"({"name": "a", "every_ms": 1000,
                        "task": {"kind": "nope", "payload": "x"}})", err));
  CHECK_THAT(err, Contains("'task'"));
  CHECK_FALSE(parse(R"({"name": "a", "every_ms": 1000, "catch_up": "some",
                        "task": {"kind": "echo", "payload": "x"}})", err));
  CHECK_THAT(err, Contains("catch_up"));
  CHECK_FALSE(parse(R"({"name": "a", "every_ms": 1000,
                        "task": {"kind": "echo", "payload": "x", "after": ["t"]}})", err));
  CHECK_THAT(err, Contains("does not apply to a schedule's ticks"));
}
