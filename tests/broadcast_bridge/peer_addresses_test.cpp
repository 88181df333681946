#include <catch2/catch.hpp>

#include "broadcast_bridge/peer_addresses.hpp"

using namespace dice;

using opt = std::optional<std::string>;
using strings = std::vector<std::string>;

TEST_CASE("peer addresses: membership's view resolves ids and sets the "
          "broadcast targets, seeds included, self never",
          "[bridge][peer_addresses]") {
  peer_addresses p("a", "10.0.0.1:7400");
  CHECK(p.resolve("b") == std::nullopt);
  CHECK(p.targets().empty());
  p.set_members({{{"a", "10.0.0.1:7400"}, {"b", "10.0.0.2:7400"}},
                 {"10.0.0.9:7400", "10.0.0.1:7400"}});
  CHECK(p.resolve("b") == opt("10.0.0.2:7400"));
  CHECK(p.resolve("a") == std::nullopt); // self is no peer
  CHECK(p.targets() == strings{"10.0.0.2:7400", "10.0.0.9:7400"});
  // The next view replaces it: b gone, c there.
  p.set_members({{{"c", "10.0.0.3:7400"}}, {}});
  CHECK(p.resolve("b") == std::nullopt);
  CHECK(p.resolve("c") == opt("10.0.0.3:7400"));
  CHECK(p.targets() == strings{"10.0.0.3:7400"});
}

TEST_CASE("peer addresses: an id membership does not list resolves to where "
          "its datagrams come from, membership's address wins a clash",
          "[bridge][peer_addresses]") {
  peer_addresses p("a", "10.0.0.1:7400");
  p.heard("b", "10.0.0.2:7400");
  CHECK(p.resolve("b") == opt("10.0.0.2:7400"));
  CHECK(p.targets().empty()); // hearing is not membership: no fan-out
  p.heard("b", "10.0.0.2:7500"); // restarted elsewhere
  CHECK(p.resolve("b") == opt("10.0.0.2:7500"));
  // Membership holds b at its first address (a newcomer took b's id).
  p.set_members({{{"b", "10.0.0.2:7400"}}, {}});
  p.heard("b", "10.0.0.66:7400");
  CHECK(p.resolve("b") == opt("10.0.0.2:7400"));
  // Self, empty ids and empty addresses are not learned.
  p.heard("a", "10.0.0.5:1");
  p.heard("", "10.0.0.5:1");
  p.heard("d", "");
  CHECK(p.resolve("a") == std::nullopt);
  CHECK(p.resolve("d") == std::nullopt);
}

TEST_CASE("peer addresses: ids heard only from datagrams are bounded, the "
          "oldest forgotten first",
          "[bridge][peer_addresses]") {
  peer_addresses p("a", "", 2);
  p.heard("b", "b:1");
  p.heard("c", "c:1");
  p.heard("b", "b:2"); // known already: no new entry
  p.heard("d", "d:1");
  CHECK(p.resolve("b") == std::nullopt);
  CHECK(p.resolve("c") == opt("c:1"));
  CHECK(p.resolve("d") == opt("d:1"));
}
