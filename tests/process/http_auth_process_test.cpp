// The HTTP API's bearer token (issue 17, item 11): off loopback a node
// does not start without one, and with one every request but /health must
// carry it, from curl-like clients and from the dice CLI.
#include <cstdlib>
#include <sstream>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;

namespace {

const std::string token = "s3cret-token-of-32-bytes-exactly";

http_reply get_with(std::uint16_t port, const std::string& path,
                    const httplib::Headers& headers) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(2);
  cli.set_read_timeout(5);
  auto res = cli.Get(path.c_str(), headers);
  if (!res)
    return {};
  return {res->status, res->body};
}

std::string error_of(const http_reply& r) {
  auto j = r.json();
  return j && j->is_object() ? j->value("error", "") : "";
}

} // namespace

TEST_CASE("dice-node refuses --http off loopback without a token file",
          "[process][http][auth]") {
  temp_dir dir;
  // Refused before any socket is opened, so nothing listens on 0.0.0.0.
  auto r = run_node_to_exit({"--listen", loopback(free_port(true)), "--http",
                             "0.0.0.0:" + std::to_string(free_port(false))},
                            dir, "node.log", millis(2000));
  INFO(r.output);
  REQUIRE(r.exit_code.has_value());
  CHECK(*r.exit_code != 0);
  CHECK(*r.exit_code < 128);
  CHECK_THAT(r.output, Contains("error") && Contains("--http-token-file"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') <= 1);
}

TEST_CASE("with --http-token-file every request but /health needs the token",
          "[process][http][auth]") {
  cluster c;
  auto token_file = c.dir().write("api.token", token + "\n");
  auto spec = c.make_spec("auth-1");
  spec.extra_args = {"--http-token-file", token_file};
  auto& n = c.start(spec); // waits on /health, which needs no token
  auto port = n.spec().http_port;

  auto missing = get_with(port, "/stats", {});
  CHECK(missing.status == 401);
  CHECK_THAT(error_of(missing), Contains("token"));
  auto wrong = get_with(port, "/tasks", {{"Authorization", "Bearer " + token + "x"}});
  CHECK(wrong.status == 401);
  CHECK_THAT(error_of(wrong), Contains("token"));
  // A submit without the token enqueues nothing.
  httplib::Client cli("127.0.0.1", port);
  auto post = cli.Post("/tasks", R"({"kind":"echo","payload":"x"})",
                       "application/json");
  REQUIRE(post);
  CHECK(post->status == 401);

  auto good = get_with(port, "/stats", {{"Authorization", "Bearer " + token}});
  REQUIRE(good.status == 200);
  auto stats = good.json();
  REQUIRE(stats);
  CHECK((*stats)["http"]["unauthorized"] == 3);
  CHECK((*stats)["tasks"]["total"] == 0);

  // The CLI sends it from --token-file or $DICE_TOKEN_FILE.
  auto url = "http://" + loopback(port);
  process with_flag(DICE_CLI_BIN,
                    {"--node", url, "--token-file", token_file, "--json",
                     "submit", "echo", "hi"},
                    c.dir().file("cli-flag.log"));
  CHECK(with_flag.wait_exit(millis(10000)) == 0);
  process without(DICE_CLI_BIN, {"--node", url, "stats"},
                  c.dir().file("cli-none.log"));
  CHECK(without.wait_exit(millis(10000)) == 1);
  CHECK_THAT(without.log(), Contains("401") && Contains("--token-file FILE"));
  ::setenv("DICE_TOKEN_FILE", token_file.c_str(), 1);
  process with_env(DICE_CLI_BIN, {"--node", url, "tasks"},
                   c.dir().file("cli-env.log"));
  ::unsetenv("DICE_TOKEN_FILE");
  CHECK(with_env.wait_exit(millis(10000)) == 0);
  INFO(with_flag.log() << with_env.log());
}
