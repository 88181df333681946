#include <catch2/catch.hpp>

#include "ranking/adaptive_prefetch.hpp"

using namespace dice;

TEST_CASE("claims ahead follow how long executions take: the most while they "
          "take a few ms, one once they take longer than the budget",
          "[prefetch]") {
  adaptive_prefetch p; // 1..4, 20 ms of work held ahead
  CHECK(p.current() == 1); // nothing measured: as a fixed --prefetch 1
  SECTION("no-op executions raise it to the most at the first one") {
    CHECK(p.ran(0));
    CHECK(p.current() == 4);
    for (int i = 0; i < 100; ++i)
      CHECK_FALSE(p.ran(1));
    CHECK(p.current() == 4);
    SECTION("executions of 250 ms bring it down to one within a few") {
      int runs = 0;
      while (p.current() > 1 && runs < 100) {
        p.ran(250);
        ++runs;
      }
      CHECK(p.current() == 1);
      CHECK(runs <= 3);
    }
    SECTION("one slow execution among fast ones moves it by a step at most") {
      p.ran(60);
      CHECK(p.current() >= 3);
    }
  }
  SECTION("long executions from the start never raise it") {
    for (int i = 0; i < 50; ++i)
      CHECK_FALSE(p.ran(300));
    CHECK(p.current() == 1);
  }
  SECTION("executions of 8 ms hold two ahead (16 ms of work)") {
    for (int i = 0; i < 50; ++i)
      p.ran(8);
    CHECK(p.current() == 2);
  }
}

TEST_CASE("a mean that hovers at a step does not change the claims ahead at "
          "every execution",
          "[prefetch]") {
  adaptive_prefetch p;
  for (int i = 0; i < 50; ++i)
    p.ran(5); // 4 x 5 ms fits the 20 ms budget
  REQUIRE(p.current() == 4);
  int changes = 0;
  for (int i = 0; i < 200; ++i)
    changes += p.ran(i % 2 == 0 ? 4 : 7) ? 1 : 0; // a mean of about 5.5 ms
  CHECK(changes <= 1);
}

TEST_CASE("the range of the claims ahead is the configured one", "[prefetch]") {
  adaptive_prefetch p{adaptive_prefetch_config{2, 6, 30}};
  CHECK(p.current() == 2);
  p.ran(0);
  CHECK(p.current() == 6);
  for (int i = 0; i < 50; ++i)
    p.ran(1000);
  CHECK(p.current() == 2);
  SECTION("a ceiling below the floor is the floor") {
    adaptive_prefetch q{adaptive_prefetch_config{3, 1, 20}};
    q.ran(0);
    CHECK(q.current() == 3);
  }
}
