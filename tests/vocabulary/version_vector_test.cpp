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
    *only.mutable_beyond() = e.beyond();
    bytes += only.ByteSizeLong();
  }
  return bytes;
}

} // namespace

TEST_CASE("a version vector with a short gap goes over the wire whole",
          "[communication][versions]") {
  auto v = with_gap("a#1", 10, 12, 5);
  entries wire;
  v.to_wire(&wire);
  CHECK(version_vector::from_wire(wire) == v);
}

TEST_CASE("a long gap's ops are reported newest first within the budget, "
          "and the reading replica never believes it saw more",
          "[communication][versions]") {
  auto v = with_gap("a#1", 368, 400, 2000);
  entries wire;
  v.to_wire(&wire);
  // The packed field adds its tag and length to the seqs themselves.
  CHECK(beyond_bytes(wire) <= wire_beyond_bytes + 3);
  auto read = version_vector::from_wire(wire);
  CHECK(read.get("a#1") == 368);
  CHECK(read.seen("a#1", 2400)); // the newest op is acknowledged
  CHECK_FALSE(read.seen("a#1", 401));
  for (std::uint64_t s = 1; s <= 2500; ++s)
    if (read.seen("a#1", s))
      REQUIRE(v.seen("a#1", s));
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
  CHECK(wire[0].beyond_size() > 10);
  CHECK(wire[1].beyond_size() > 10);
  CHECK(wire[2].beyond_size() == 0);
  CHECK(wire[2].seq() == 9);
}
