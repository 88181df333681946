#include <catch2/catch.hpp>

#include <ctime>

#include "task_options.hpp"

using namespace dice::cli;

TEST_CASE("durations take a unit, seconds without one", "[cli][policy]") {
  std::int64_t ms = 0;
  std::string error;
  CHECK((parse_duration_ms("500ms", ms, error) && ms == 500));
  CHECK((parse_duration_ms("30s", ms, error) && ms == 30'000));
  CHECK((parse_duration_ms("30", ms, error) && ms == 30'000));
  CHECK((parse_duration_ms("10m", ms, error) && ms == 600'000));
  CHECK((parse_duration_ms("2h", ms, error) && ms == 7'200'000));
  CHECK((parse_duration_ms("1d", ms, error) && ms == 86'400'000));
  for (auto bad : {"", "s", "-5s", "1.5s", "10 m", "3w", "9999999999999s"}) {
    INFO(bad);
    CHECK_FALSE(parse_duration_ms(bad, ms, error));
    CHECK_THAT(error, Catch::Contains("is not a duration"));
  }
}

TEST_CASE("times are a duration from now, a UTC or local date and time, or "
          "the next time of day",
          "[cli][policy]") {
  const std::int64_t now = 1'795'000'000'000; // 2026-11-18T11:06:40Z
  std::int64_t at = 0;
  std::string error;
  CHECK((parse_time_ms("10m", now, at, error) && at == now + 600'000));
  CHECK((parse_time_ms("+10m", now, at, error) && at == now + 600'000));
  CHECK((parse_time_ms("2026-11-26T18:00:00Z", now, at, error)
         && at == 1'795'716'000'000));
  CHECK((parse_time_ms("2026-11-26T18:00Z", now, at, error)
         && at == 1'795'716'000'000));
  // Local times: whatever the zone, the next 18:00 is within a day ahead.
  REQUIRE(parse_time_ms("18:00", now, at, error));
  CHECK(at > now);
  CHECK(at <= now + 86'400'000);
  std::time_t t = static_cast<std::time_t>(at / 1000);
  std::tm local{};
  localtime_r(&t, &local);
  CHECK(local.tm_hour == 18);
  CHECK(local.tm_min == 0);
  for (auto bad : {"tomorrow", "25:00", "2026-13-01T00:00Z", "18:00Z", "2026-11-26"}) {
    INFO(bad);
    CHECK_FALSE(parse_time_ms(bad, now, at, error));
  }
}

TEST_CASE("submit options become the POST /tasks policy fields",
          "[cli][policy]") {
  const std::int64_t now = 1'000'000;
  nlohmann::json body;
  std::string error;
  REQUIRE(add_task_policy({{"--time-limit", "30s"},
                           {"--retries", "3"},
                           {"--backoff", "2s"},
                           {"--at", "+10m"},
                           {"--expires", "1h"},
                           {"--key", "K"}},
                          now, body, error));
  CHECK(body["time_limit_ms"] == 30'000);
  CHECK(body["retries"] == 3);
  CHECK(body["backoff_ms"] == 2000);
  CHECK(body["not_before_ms"] == now + 600'000);
  CHECK(body["expires_ms"] == now + 3'600'000);
  CHECK(body["key"] == "K");
  CHECK_FALSE(add_task_policy({{"--delay", "1m"}, {"--at", "18:00"}}, now, body, error));
  CHECK_THAT(error, Catch::Contains("--at: give --delay or --at, not both"));
  CHECK_FALSE(add_task_policy({{"--retries", "100"}}, now, body, error));
  CHECK_THAT(error, Catch::Contains("--retries"));
  CHECK_FALSE(add_task_policy({{"--time-limit", "soon"}}, now, body, error));
  CHECK_THAT(error, Catch::Contains("--time-limit: 'soon' is not a duration"));
}
