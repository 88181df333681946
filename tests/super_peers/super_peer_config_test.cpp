#include <catch2/catch.hpp>

#include <stdexcept>

#include "super_peers/super_peer_config.hpp"

using namespace dice;

TEST_CASE("the super-peers option takes auto or off or a count", "[super_peers]") {
  CHECK(parse_super_peers("off").mode == super_peer_mode::off);
  CHECK(parse_super_peers("auto").mode == super_peer_mode::automatic);
  auto two = parse_super_peers("2");
  CHECK(two.mode == super_peer_mode::fixed);
  CHECK(two.count == 2);
  CHECK(to_string(two) == "2");
  CHECK(to_string(parse_super_peers("auto")) == "auto");
  CHECK(to_string(super_peer_config{}) == "off"); // off until something relays
  for (auto bad : {"", "0", "-1", "two", "2x", "65536", "999999999999", "Auto"})
    CHECK_THROWS_WITH(parse_super_peers(bad),
                      Catch::Contains("--super-peers")
                        && Catch::Contains("auto, off or a count"));
}

TEST_CASE("auto wants ceil(sqrt(N)) super-peers", "[super_peers]") {
  auto cfg = parse_super_peers("auto");
  CHECK(cfg.wanted(0) == 0);
  CHECK(cfg.wanted(1) == 1);
  CHECK(cfg.wanted(4) == 2);
  CHECK(cfg.wanted(5) == 3);
  CHECK(cfg.wanted(1024) == 32);
  CHECK(cfg.wanted(1025) == 33);
  CHECK(parse_super_peers("off").wanted(100) == 0);
  CHECK(parse_super_peers("7").wanted(3) == 7); // bounded later by who may serve
}
