#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "membership/heartbeat_versions.hpp"
#include "vocabulary/version_vector.hpp"

using namespace dice;

namespace {

using entries = google::protobuf::RepeatedPtrField<wire::VersionEntry>;

entries wire_of(const version_vector& v) {
  entries out;
  v.to_wire(&out);
  return out;
}

std::string origin(int i) {
  return "node-" + std::to_string(100 + i) + "@1";
}

} // namespace

TEST_CASE("heartbeat versions: a whole list first and every full_every-th, "
          "in between only the origins that changed",
          "[membership][heartbeat_versions]") {
  heartbeat_versions hv({4, 2});
  version_vector v;
  for (int i = 0; i < 20; ++i)
    v.observe(origin(i), 1);
  wire::Heartbeat hb;
  for (int k = 0; k < 2; ++k) { // history shorter than the span: whole
    hv.next(wire_of(v), &hb);
    CHECK_FALSE(hb.versions_partial());
    CHECK(hb.versions_size() == 20);
  }
  v.observe(origin(3), 2);
  hv.next(wire_of(v), &hb); // the third: changes since the first
  REQUIRE(hb.versions_partial());
  REQUIRE(hb.versions_size() == 1);
  CHECK(hb.versions(0).origin() == origin(3));
  CHECK(hb.versions(0).seq() == 2);
  v.observe(origin(7), 5); // past a gap: the entry's beyond list changes
  hv.next(wire_of(v), &hb);
  REQUIRE(hb.versions_partial());
  CHECK(hb.versions_size() == 2); // origin 3 still within the span
  hv.next(wire_of(v), &hb);       // the fifth: whole again
  CHECK_FALSE(hb.versions_partial());
  CHECK(hb.versions_size() == 20);
  v.observe(origin(9), 2);
  hv.next(wire_of(v), &hb); // the sixth: changes since the fourth
  REQUIRE(hb.versions_partial());
  REQUIRE(hb.versions_size() == 1);
  CHECK(hb.versions(0).origin() == origin(9));
  hv.next(wire_of(v), &hb); // since the fifth: still origin 9
  CHECK(hb.versions_size() == 1);
  hv.next(wire_of(v), &hb); // since the sixth: nothing changed
  CHECK(hb.versions_partial());
  CHECK(hb.versions_size() == 0);
  // Most origins changed: no saving, so the whole list.
  for (int i = 0; i < 15; ++i)
    v.observe(origin(i), 2);
  hv.next(wire_of(v), &hb);
  CHECK_FALSE(hb.versions_partial());
  CHECK_THROWS_AS(heartbeat_versions({0, 3}), std::invalid_argument);
}

TEST_CASE("heartbeat versions: after a peer arrives the next list is whole",
          "[membership][heartbeat_versions]") {
  heartbeat_versions hv({100, 1});
  version_vector v;
  for (int i = 0; i < 10; ++i)
    v.observe(origin(i), 1);
  wire::Heartbeat hb;
  hv.next(wire_of(v), &hb);
  CHECK_FALSE(hb.versions_partial());
  hv.next(wire_of(v), &hb);
  CHECK(hb.versions_partial());
  hv.send_whole_next();
  hv.next(wire_of(v), &hb);
  CHECK_FALSE(hb.versions_partial());
  CHECK(hb.versions_size() == 10);
  hv.next(wire_of(v), &hb);
  CHECK(hb.versions_partial());
  CHECK(hb.versions_size() == 0);
}

TEST_CASE("heartbeat versions: a peer that joins what it hears through loss "
          "never holds more than the sender saw, and holds all of it after "
          "each whole list", "[membership][heartbeat_versions]") {
  const auto seed = GENERATE(1u, 2u, 3u, 4u, 5u);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  heartbeat_versions hv; // the defaults dice-node runs
  version_vector sender;
  version_vector heard;
  std::size_t partial_entries = 0;
  std::size_t partials = 0;
  std::vector<std::pair<std::string, std::uint64_t>> late;
  for (int beat = 0; beat < 400; ++beat) {
    // A few origins of 64 move on between two heartbeats; some op arrives
    // past a gap, which the next heartbeat's interval fills.
    for (const auto& [o, seq] : late)
      sender.observe(o, seq);
    late.clear();
    for (int k = 0; k < 3; ++k) {
      auto o = origin(static_cast<int>(rng() % 64));
      auto next = sender.get(o) + 1;
      if (rng() % 5 == 0 && !sender.has_gaps(o)) {
        late.emplace_back(o, next);
        ++next;
      }
      sender.observe(o, next);
    }
    wire::Heartbeat hb;
    hv.next(wire_of(sender), &hb);
    if (hb.versions_partial()) {
      ++partials;
      partial_entries += static_cast<std::size_t>(hb.versions_size());
    }
    if (rng() % 10 < 3) // 30% of heartbeats lost
      continue;
    heard.join(version_vector::from_wire(hb.versions()));
    CHECK_FALSE(sender.behind(heard)); // a lower bound: nothing unseen
    if (!hb.versions_partial()) {
      CHECK_FALSE(heard.behind(sender)); // whole: nothing missing
    }
  }
  // Partial lists carry the few that moved, not the 64 origins.
  REQUIRE(partials > 200);
  CHECK(partial_entries / partials <= 12);
}
