#include <catch2/catch.hpp>

#include "membership/live_peers.hpp"

using namespace dice;

TEST_CASE("live peers: alive and suspect take part, dead do not, and a "
          "restart is seen as a leave and a return", "[membership]") {
  live_peers p("self");
  std::vector<std::vector<std::string>> views;
  auto record = [&](const std::vector<std::string>& v) { views.push_back(v); };
  peer_change c;
  c.id = "a";
  c.addr = "127.0.0.1:1";
  c.to = peer_state::alive;
  CHECK(p.apply(c, record));
  CHECK(p.ids() == std::vector<std::string>{"a"});
  c.to = peer_state::suspect;
  CHECK_FALSE(p.apply(c, record)); // still taking part
  c.to = peer_state::alive;
  c.restarted = true;
  CHECK(p.apply(c, record));
  c.restarted = false;
  c.to = peer_state::dead;
  CHECK(p.apply(c, record));
  using v = std::vector<std::string>;
  CHECK(views == std::vector<v>{v{"a"}, v{}, v{"a"}, v{}});
  c.id = "self";
  CHECK_FALSE(p.apply(c, record));
  CHECK(p.ids().empty());
}
