#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "vocabulary/version_vector.hpp"

using namespace dice;

// On the wire a version vector may report less than it saw, never more:
// a replica reading it then asks for ops again, and nothing is lost.

namespace {

using entries = google::protobuf::RepeatedPtrField<wire::VersionEntry>;

// origin saw 1..hi, then every seq in (gap_end, gap_end + beyond].
version_vector with_gap(const std::string& origin, std::uint64_t hi,
                        std::uint64_t gap_end, std::uint64_t beyond) {
  version_vector v;
  for (std::uint64_t s = 1; s <= hi; ++s)
    v.observe(origin, s);
  for (std::uint64_t s = gap_end + 1; s <= gap_end + beyond; ++s)
    v.observe(origin, s);
  return v;
}

std::size_t beyond_bytes(const entries& wire) {
  std::size_t bytes = 0;
  for (const auto& e : wire) {
    wire::VersionEntry only;
    *only.mutable_beyond_runs() = e.beyond_runs();
    bytes += only.ByteSizeLong();
  }
  return bytes;
}

// origin saw 1..hi, then every other seq from gap_end + 1 on, `count` of them.
version_vector with_holes(const std::string& origin, std::uint64_t hi,
                          std::uint64_t gap_end, std::uint64_t count) {
  version_vector v;
  for (std::uint64_t s = 1; s <= hi; ++s)
    v.observe(origin, s);
  for (std::uint64_t i = 0; i < count; ++i)
    v.observe(origin, gap_end + 1 + 2 * i);
  return v;
}

} // namespace

TEST_CASE("a version vector with a short gap goes over the wire whole",
          "[communication][versions]") {
  auto v = with_gap("a#1", 10, 12, 5);
  entries wire;
  v.to_wire(&wire);
  CHECK(version_vector::from_wire(wire) == v);
}

TEST_CASE("a long stretch seen past a gap goes over the wire whole, as one run",
          "[communication][versions]") {
  auto v = with_gap("a#1", 368, 400, 2000);
  entries wire;
  v.to_wire(&wire);
  REQUIRE(wire.size() == 1);
  CHECK(wire[0].beyond_runs_size() == 2);
  CHECK(version_vector::from_wire(wire) == v);
}

TEST_CASE("many short runs past a gap are reported newest first within the "
          "budget, and the reading replica never believes it saw more",
          "[communication][versions]") {
  auto v = with_holes("a#1", 368, 400, 2000);
  entries wire;
  v.to_wire(&wire);
  // The packed field adds its tag and length to the numbers themselves.
  CHECK(beyond_bytes(wire) <= wire_beyond_bytes + 3);
  auto read = version_vector::from_wire(wire);
  CHECK(read.get("a#1") == 368);
  CHECK(read.seen("a#1", 400 + 2 * 2000 - 1)); // the newest op is acknowledged
  CHECK_FALSE(read.seen("a#1", 401));
  for (std::uint64_t s = 1; s <= 4500; ++s)
    if (read.seen("a#1", s))
      REQUIRE(v.seen("a#1", s));
}

TEST_CASE("a peer's runs, however long they claim to be, are taken in up to "
          "a bound, and single seqs of an older peer are still read",
          "[communication][versions]") {
  entries wire;
  auto* e = wire.Add();
  e->set_origin("a#1");
  e->set_seq(3);
  e->add_beyond_runs(10);
  e->add_beyond_runs(UINT64_MAX); // wraps around
  e->add_beyond_runs(2);          // a run below the contiguous part
  e->add_beyond_runs(1);
  e->add_beyond_runs(7);          // a dangling first without a count
  auto read = version_vector::from_wire(wire);
  REQUIRE(read.beyond_gaps().count("a#1") == 1);
  CHECK(read.beyond_gaps().at("a#1").size() == read_beyond_limit);
  CHECK(read.seen("a#1", 10));
  CHECK_FALSE(read.seen("a#1", 9));

  entries older;
  auto* old = older.Add();
  old->set_origin("b#1");
  old->set_seq(1);
  old->add_beyond(5);
  old->add_beyond(6);
  auto b = version_vector::from_wire(older);
  CHECK(b.seen("b#1", 5));
  CHECK(b.seen("b#1", 6));
  CHECK_FALSE(b.seen("b#1", 4));
}

TEST_CASE("origins with gaps share the budget, and each keeps some",
          "[communication][versions]") {
  auto v = with_gap("a#1", 5, 10, 1000);
  v.raise_to(with_gap("b#1", 7, 20, 1000));
  v.raise_to(with_gap("c#1", 9, 9, 0)); // no gap
  entries wire;
  v.to_wire(&wire);
  REQUIRE(wire.size() == 3);
  CHECK(beyond_bytes(wire) <= wire_beyond_bytes + 6);
  CHECK(wire[0].beyond_runs_size() == 2); // each a run of 1,000
  CHECK(wire[1].beyond_runs_size() == 2);
  CHECK(wire[2].beyond_runs_size() == 0);
  CHECK(version_vector::from_wire(wire) == v);
  CHECK(wire[2].seq() == 9);
}
