#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "broadcast_bridge/replay_window.hpp"

using namespace dice;
using verdict = replay_window::verdict;

TEST_CASE("a duplicate is dropped, per sender", "[bridge]") {
  replay_window w{64};
  CHECK(w.check_and_record("a", 1, 1) == verdict::fresh);
  CHECK(w.check_and_record("a", 1, 1) == verdict::replayed);
  CHECK(w.check_and_record("a", 1, 2) == verdict::fresh);
  CHECK(w.check_and_record("a", 1, 2) == verdict::replayed);
  CHECK(w.check_and_record("a", 1, 1) == verdict::replayed);
  // Another sender's numbers are its own.
  CHECK(w.check_and_record("b", 1, 1) == verdict::fresh);
  CHECK(w.check_and_record("b", 1, 1) == verdict::replayed);
}

TEST_CASE("reordering within the window accepts each datagram exactly once",
          "[bridge]") {
  const std::uint64_t window = 32;
  const std::uint64_t seed = 99;
  INFO("seed " << seed);
  std::mt19937_64 rng{seed};
  replay_window w{window};
  // Every sequence number twice, shuffled in blocks of half a window: no
  // datagram arrives more than a window behind the highest one seen.
  const std::uint64_t n = 1000;
  std::vector<std::uint64_t> arrivals;
  for (std::uint64_t block = 0; block < n; block += window / 2) {
    std::vector<std::uint64_t> part;
    for (auto s = block + 1; s <= std::min(n, block + window / 2); ++s) {
      part.push_back(s);
      part.push_back(s);
    }
    std::shuffle(part.begin(), part.end(), rng);
    arrivals.insert(arrivals.end(), part.begin(), part.end());
  }
  std::map<std::uint64_t, int> fresh;
  for (auto s : arrivals) {
    auto v = w.check_and_record("a", 1, s);
    if (v == verdict::fresh)
      ++fresh[s];
    else
      CHECK(v == verdict::replayed);
  }
  REQUIRE(fresh.size() == n);
  for (auto& [seq, count] : fresh) {
    INFO("sequence " << seq);
    CHECK(count == 1);
  }
}

TEST_CASE("a datagram a whole window behind is too old", "[bridge]") {
  replay_window w{8};
  CHECK(w.check_and_record("a", 1, 20) == verdict::fresh);
  CHECK(w.check_and_record("a", 1, 12) == verdict::too_old); // 20 - 8
  CHECK(w.check_and_record("a", 1, 1) == verdict::too_old);
  CHECK(w.check_and_record("a", 1, 13) == verdict::fresh); // 20 - 7
  CHECK(w.check_and_record("a", 1, 13) == verdict::replayed);
}

TEST_CASE("sliding the window forgets slots it moved past", "[bridge]") {
  replay_window w{4};
  for (std::uint64_t s = 1; s <= 4; ++s)
    CHECK(w.check_and_record("a", 1, s) == verdict::fresh);
  // 5 reuses the slot of 1; 1 is now out of the window, 5 is seen once.
  CHECK(w.check_and_record("a", 1, 5) == verdict::fresh);
  CHECK(w.check_and_record("a", 1, 5) == verdict::replayed);
  CHECK(w.check_and_record("a", 1, 1) == verdict::too_old);
  CHECK(w.check_and_record("a", 1, 4) == verdict::replayed);
  // A jump past a whole window: everything in between is fresh once.
  CHECK(w.check_and_record("a", 1, 100) == verdict::fresh);
  CHECK(w.check_and_record("a", 1, 98) == verdict::fresh);
  CHECK(w.check_and_record("a", 1, 98) == verdict::replayed);
  CHECK(w.check_and_record("a", 1, 97) == verdict::fresh);
  CHECK(w.check_and_record("a", 1, 96) == verdict::too_old);
}

TEST_CASE("a higher incarnation resets the window, a lower one is stale",
          "[bridge]") {
  replay_window w{64};
  for (std::uint64_t s = 1; s <= 10; ++s)
    CHECK(w.check_and_record("a", 5, s) == verdict::fresh);
  SECTION("restart: the sender counts from 1 again") {
    CHECK(w.check_and_record("a", 6, 1) == verdict::fresh);
    CHECK(w.check_and_record("a", 6, 1) == verdict::replayed);
    CHECK(w.check_and_record("a", 6, 2) == verdict::fresh);
    // The old incarnation is over, even for numbers it never used.
    CHECK(w.check_and_record("a", 5, 11) == verdict::stale_incarnation);
  }
  SECTION("a lower incarnation than the first seen is dropped") {
    CHECK(w.check_and_record("a", 4, 1) == verdict::stale_incarnation);
    CHECK(w.check_and_record("a", 4, 100) == verdict::stale_incarnation);
    CHECK(w.check_and_record("a", 5, 11) == verdict::fresh);
  }
}

TEST_CASE("memory is bounded in the number of senders", "[bridge]") {
  replay_window w{16, 4};
  for (int i = 0; i < 100; ++i) {
    CHECK(w.check_and_record("s" + std::to_string(i), 1, 1) == verdict::fresh);
    CHECK(w.senders() <= 4);
  }
  CHECK(w.senders() == 4);
  // The most recent sender is still remembered.
  CHECK(w.check_and_record("s99", 1, 1) == verdict::replayed);
}
