#include <catch2/catch.hpp>

#include "communication/peer_versions.hpp"

using namespace dice;

namespace {

version_vector vv(std::initializer_list<std::pair<const char*, std::uint64_t>> upto) {
  version_vector v;
  for (const auto& [origin, hi] : upto)
    for (std::uint64_t s = 1; s <= hi; ++s)
      v.observe(origin, s);
  return v;
}

// A whole report, keeping nothing of it (no acks, nothing superseded).
void whole(peer_versions& p, const std::string& peer, const version_vector& v,
           const version_vector& self, millis now = 0) {
  p.update(peer, 1, v, {}, true, self, now);
}

} // namespace

TEST_CASE("floors are what every peer reported whole in one round, and wait "
          "for a peer that joins or restarts",
          "[communication][peer_versions]") {
  peer_versions p;
  auto self = vv({{"x#1", 9}, {"y#1", 4}});
  p.update("c", 1, vv({{"x#1", 9}}), {}, false, self, 0);
  whole(p, "b", vv({{"x#1", 7}, {"y#1", 4}}), self);
  // c is known, but has not reported whole: no floor yet.
  CHECK(p.floors(self).at("x#1") == 0);
  whole(p, "c", vv({{"x#1", 9}, {"y#1", 2}}), self);
  CHECK(p.floors(self).at("x#1") == 7);
  CHECK(p.floors(self).at("y#1") == 2);

  // A newcomer has seen less: nothing compacts until it reported whole.
  whole(p, "d", vv({{"x#1", 3}}), self);
  CHECK(p.floors(self).at("x#1") == 0);
  whole(p, "b", vv({{"x#1", 9}, {"y#1", 4}}), self);
  whole(p, "c", vv({{"x#1", 9}, {"y#1", 4}}), self);
  CHECK(p.floors(self).at("x#1") == 3); // d's report is in this round
  CHECK(p.floors(self).at("y#1") == 0); // and d saw nothing of y#1

  // A peer the round waits for dies: the others' reports decide.
  whole(p, "b", vv({{"x#1", 9}, {"y#1", 4}}), self);
  whole(p, "c", vv({{"x#1", 9}, {"y#1", 4}}), self);
  p.forget("d");
  p.update("b", 1, {}, {}, false, self, 0);
  CHECK(p.floors(self).at("x#1") == 9);
  CHECK(p.floors(self).at("y#1") == 4);

  // Never above what this replica has seen itself.
  auto less = vv({{"x#1", 5}, {"y#1", 4}});
  CHECK(p.floors(less).at("x#1") == 5);
}

TEST_CASE("an op a peer reported is lost only if still missing a report "
          "later, and not once the peer stops holding it",
          "[communication][peer_versions]") {
  peer_versions p;
  auto self = vv({{"x#1", 4}});
  whole(p, "b", vv({{"x#1", 4}}), self);
  CHECK_FALSE(p.lacking("b", self));
  // b has x#1 up to 6: in flight to us, maybe.
  whole(p, "b", vv({{"x#1", 6}}), self);
  CHECK(p.lacking("b", self)); // asked at b's next report, they are lost
  self.observe("x#1", 5);
  whole(p, "b", vv({{"x#1", 6}}), self);
  CHECK(p.lacking("b", self)); // x#1 6 is still missing
  self.observe("x#1", 6);
  CHECK_FALSE(p.lacking("b", self));

  // Past a gap of b's own: still an op we lack.
  auto gappy = vv({{"x#1", 6}});
  gappy.observe("x#1", 9);
  whole(p, "b", gappy, self);
  CHECK(p.lacking("b", self));
  // b's whole report leaves x#1 out (it pruned it): not asked again.
  whole(p, "b", vv({}), self);
  CHECK_FALSE(p.lacking("b", self));
}

TEST_CASE("what is kept of a peer is the part the caller keeps, whatever "
          "the number of origins it reports",
          "[communication][peer_versions]") {
  peer_versions p;
  version_vector self, big;
  for (int n = 0; n < 500; ++n)
    big.observe("n" + std::to_string(n) + "#1", 1);
  for (std::uint64_t s = 1; s <= 3; ++s)
    big.observe("a#1", s);
  p.update("b", 1, big, big.only("a#1"), true, self, 0);
  REQUIRE(p.kept("b") != nullptr);
  CHECK(p.kept("b")->entries().size() == 1);
  CHECK(p.kept("b")->get("a#1") == 3);
  // Acks join into it; a report of an older incarnation does not.
  version_vector ack;
  ack.observe("a#1", 4);
  ack.observe("a#1", 5);
  p.acked("b", 1, ack);
  ack.observe("a#1", 6);
  p.acked("b", 0, ack);
  CHECK(p.kept("b")->get("a#1") == 5);
  // A restart starts it over.
  p.update("b", 2, {}, {}, false, self, 0);
  CHECK(p.kept("b")->get("a#1") == 0);
  CHECK(p.knows("b", 2));
  CHECK_FALSE(p.knows("b", 1));
}
