// Who may use the HTTP API: the bearer token check and the refusal to
// serve off loopback without a token.
#include <catch2/catch.hpp>

#include "http_api/bearer_token.hpp"
#include "node/http_config.hpp"

using namespace dice;

TEST_CASE("bearer_matches takes exactly the token, in the Bearer scheme",
          "[http][auth]") {
  const std::string token = "0123456789abcdef-token";
  CHECK(bearer_matches("Bearer " + token, token));
  CHECK(bearer_matches("bearer " + token, token)); // the scheme in any case
  CHECK_FALSE(bearer_matches("", token));
  CHECK_FALSE(bearer_matches("Bearer ", token));
  CHECK_FALSE(bearer_matches(token, token));                // no scheme
  CHECK_FALSE(bearer_matches("Basic " + token, token));
  CHECK_FALSE(bearer_matches("Bearer " + token + "x", token));
  CHECK_FALSE(bearer_matches("Bearer " + token.substr(1), token));
  CHECK_FALSE(bearer_matches("Bearer  " + token, token));
  // No token configured: nothing matches, not even an empty one.
  CHECK_FALSE(bearer_matches("Bearer ", ""));
}

TEST_CASE("only GET /health is open without the token", "[http][auth]") {
  CHECK(open_without_token("GET", "/health"));
  CHECK(open_without_token("HEAD", "/health"));
  CHECK_FALSE(open_without_token("POST", "/health"));
  CHECK_FALSE(open_without_token("GET", "/stats"));
  CHECK_FALSE(open_without_token("GET", "/health/"));
  CHECK_FALSE(open_without_token("POST", "/tasks"));
  // The dashboard's files hold no data; the page asks for the token.
  CHECK(open_without_token("GET", "/"));
  CHECK(open_without_token("GET", "/ui"));
  CHECK(open_without_token("GET", "/ui/dashboard.js"));
  CHECK_FALSE(open_without_token("GET", "/uix"));
  CHECK_FALSE(open_without_token("GET", "/metrics"));
  CHECK_FALSE(open_without_token("POST", "/ui"));
}

TEST_CASE("the API refuses to run off loopback without a token",
          "[http][auth]") {
  http_config c;
  CHECK(c.problem("127.0.0.1").empty());
  CHECK(c.problem("127.0.0.2").empty());
  auto p = c.problem("0.0.0.0");
  CHECK_THAT(p, Catch::Matchers::Contains("--http-token-file"));
  CHECK_FALSE(c.problem("192.168.1.5").empty());
  c.token = "0123456789abcdef";
  CHECK(c.problem("0.0.0.0").empty());
  c.max_connections = c.threads - 1;
  CHECK_FALSE(c.problem("127.0.0.1").empty());
}
