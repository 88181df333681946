#include <catch2/catch.hpp>

#include "common/endpoint.hpp"

using namespace dice;

TEST_CASE("endpoints parse HOST:PORT and reject malformed text") {
  auto ep = parse_endpoint("127.0.0.1:7400");
  REQUIRE(ep);
  CHECK(ep->host == "127.0.0.1");
  CHECK(ep->port == 7400);
  CHECK(parse_endpoint("localhost:1")->host == "127.0.0.1");
  std::string err;
  for (auto bad : {"", "7400", "127.0.0.1:", "127.0.0.1:70000", "1.2.3:80",
                   "host.example:80", "127.0.0.1:8x", ":80"}) {
    INFO(bad);
    CHECK_FALSE(parse_endpoint(bad, &err));
    CHECK(err.find("malformed address") == 0);
  }
}

TEST_CASE("loopback is 127.0.0.0/8") {
  CHECK(is_loopback(*parse_endpoint("127.0.0.2:1")));
  CHECK_FALSE(is_loopback(*parse_endpoint("0.0.0.0:1")));
  CHECK_FALSE(is_loopback(*parse_endpoint("10.0.0.1:1")));
}
