#include <catch2/catch.hpp>

#include "known_tasks/memory_release.hpp"

using namespace dice;

TEST_CASE("memory is released after the replica shrank, at most once per "
          "interval", "[known_tasks][memory]") {
  memory_release r(10'000);
  // Nothing forgotten yet: nothing to release, however long it runs.
  CHECK_FALSE(r.due(50'000, 0, 0));
  // Tasks forgotten: released at once (the interval since the start passed).
  CHECK(r.due(60'000, 500, 500));
  // More forgotten within the interval: waits for it.
  CHECK_FALSE(r.due(61'000, 900, 900));
  CHECK_FALSE(r.due(69'999, 900, 900));
  CHECK(r.due(70'000, 900, 900));
  // Nothing changed since: no release.
  CHECK_FALSE(r.due(90'000, 900, 900));
  // The recent list drains (30 s later): the ids' memory goes back too,
  // within the interval once it shrank...
  CHECK_FALSE(r.due(95'000, 900, 900));
  CHECK(r.due(101'000, 900, 400));
  CHECK_FALSE(r.due(102'000, 900, 300));
  // ...and at once when it empties: no later tick may come.
  CHECK(r.due(103'000, 900, 0));
  CHECK_FALSE(r.due(200'000, 900, 0));
}
