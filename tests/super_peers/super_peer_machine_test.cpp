// The super-peer election step by step on small views; the seeded
// properties over large random views are in super_peer_property_test.cpp.
#include <catch2/catch.hpp>

#include "super_peers/super_peer_machine.hpp"

using namespace dice;

namespace {

super_peer_candidate node(const std::string& id, std::uint32_t slots = 1,
                          bool heard = true) {
  return {id, heard, {slots, 100, 0}};
}

} // namespace

TEST_CASE("off elects nobody", "[super_peers]") {
  super_peer_machine m{parse_super_peers("off")};
  auto& r = m.update({node("a"), node("b")});
  CHECK(r.super_peers.empty());
  CHECK(r.attached_to.empty());
}

TEST_CASE("capacity first: the nodes with most slots serve",
          "[super_peers]") {
  super_peer_machine m{parse_super_peers("2")};
  auto& r = m.update({node("a", 1), node("b", 8), node("c", 2), node("d", 8),
                      node("e", 1)});
  CHECK(r.super_peers == std::vector<std::string>{"b", "d"});
  CHECK(r.bound == 3 + 2); // ceil(5 / 2) + slack
  for (auto id : {"a", "c", "e"}) {
    auto sp = r.super_peer_of(id);
    CHECK((sp == "b" || sp == "d"));
  }
  CHECK(r.super_peer_of("b") == "b");
}

TEST_CASE("a node known only by gossip never serves", "[super_peers]") {
  super_peer_machine m{parse_super_peers("2")};
  auto& r = m.update({node("a", 1), node("big", 64, false), node("c", 1)});
  CHECK(r.super_peers == std::vector<std::string>{"a", "c"});
  CHECK(r.super_peer_of("big") != ""); // it is still served
  // Nobody heard directly but one: one super-peer, not two.
  auto& one = m.update({node("a", 1), node("b", 1, false), node("c", 1, false)});
  CHECK(one.super_peers == std::vector<std::string>{"a"});
  CHECK(one.super_peer_of("b") == "a");
}

TEST_CASE("a dead super-peer's members go whole to its replacement",
          "[super_peers]") {
  super_peer_machine m{parse_super_peers("2")};
  std::vector<super_peer_candidate> view{node("a", 4), node("b", 4),
                                         node("c", 2), node("d", 1),
                                         node("e", 1), node("f", 1)};
  auto before = m.update(view);
  REQUIRE(before.super_peers == std::vector<std::string>{"a", "b"});
  view.erase(view.begin()); // a dies; c has the most slots left
  auto& after = m.update(view);
  CHECK(after.super_peers == std::vector<std::string>{"b", "c"});
  for (auto id : {"d", "e", "f"}) {
    INFO(id);
    if (before.super_peer_of(id) == "a")
      CHECK(after.super_peer_of(id) == "c");
    else
      CHECK(after.super_peer_of(id) == "b");
  }
}
