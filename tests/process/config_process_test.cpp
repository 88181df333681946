// dice-node's configuration as a user meets it: a bad option or address, a
// busy port or an unreadable key ends the program at once with one line that
// says what is wrong; an INI file sets options and the command line wins.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;

namespace {

std::vector<std::string> non_empty_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      out.push_back(line);
  return out;
}

std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (auto& a : args)
    out += " " + a;
  return out;
}

/// Loopback UDP and HTTP addresses nobody uses, so that a node which wrongly
/// starts disturbs nothing.
std::vector<std::string> quiet_addrs() {
  return {"--listen", loopback(free_port(true)), "--http",
          loopback(free_port(false))};
}

/// dice-node `args` exits by itself within 2 s, with a non-zero code (not a
/// crash), printing exactly one line that is an error naming `mention`.
void expect_fails_fast(const std::vector<std::string>& args,
                       const std::string& mention) {
  temp_dir dir;
  auto r = run_node_to_exit(args, dir, "node.log", millis(2000));
  INFO("dice-node" << joined(args) << "\noutput:\n" << r.output);
  REQUIRE(r.exit_code.has_value()); // exited within 2 s, not killed by us
  CHECK(*r.exit_code != 0);
  CHECK(*r.exit_code < 128); // an orderly exit, not a signal
  auto lines = non_empty_lines(r.output);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Contains("error") && Contains(mention));
}

/// Holds a socket bound to 127.0.0.1:port until destroyed.
class held_port {
public:
  explicit held_port(bool udp) {
    fd_ = ::socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(sa);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len) == 0);
    if (!udp)
      REQUIRE(::listen(fd_, 4) == 0);
    port_ = ntohs(sa.sin_port);
  }
  ~held_port() { ::close(fd_); }
  std::uint16_t port() const { return port_; }

private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

} // namespace

TEST_CASE("an unknown option fails fast with one line", "[process][config]") {
  auto args = quiet_addrs();
  args.push_back("--no-such-option");
  expect_fails_fast(args, "no-such-option");
}

TEST_CASE("an unknown --election algorithm fails fast with one line",
          "[process][config]") {
  auto args = quiet_addrs();
  args.insert(args.end(), {"--election", "raft"});
  expect_fails_fast(args, "--election 'raft'");
}

TEST_CASE("a negative --capacity fails fast with one line",
          "[process][config]") {
  auto args = quiet_addrs();
  args.insert(args.end(), {"--election", "echo", "--capacity", "-5"});
  expect_fails_fast(args, "--capacity -5");
}

TEST_CASE("a malformed --listen fails fast with one line",
          "[process][config]") {
  SECTION("no port") {
    expect_fails_fast({"--listen", "127.0.0.1", "--http",
                       loopback(free_port(false))},
                      "--listen");
  }
  SECTION("not an IPv4 address") {
    expect_fails_fast({"--listen", "no.such.host:7400", "--http",
                       loopback(free_port(false))},
                      "--listen");
  }
  SECTION("port out of range") {
    expect_fails_fast({"--listen", "127.0.0.1:65536", "--http",
                       loopback(free_port(false))},
                      "--listen");
  }
}

TEST_CASE("out-of-range executor and queue tunables fail fast with one line",
          "[process][config]") {
  auto args = quiet_addrs();
  SECTION("no slots") {
    args.insert(args.end(), {"--slots", "0"});
    expect_fails_fast(args, "--slots must be from 1 to 1024, got 0");
  }
  SECTION("negative slots") {
    args.insert(args.end(), {"--slots", "-1"});
    expect_fails_fast(args, "--slots");
  }
  SECTION("no scheduler threads") {
    args.insert(args.end(), {"--scheduler-threads", "0"});
    expect_fails_fast(args, "--scheduler-threads must be from 1 to 64, got 0");
  }
  SECTION("bundles larger than a datagram") {
    args.insert(args.end(), {"--bundle-bytes", "70000"});
    expect_fails_fast(args, "--bundle-bytes must be from 0 to 65535, got 70000");
  }
  SECTION("no attempts") {
    args.insert(args.end(), {"--max-attempts", "0"});
    expect_fails_fast(args, "--max-attempts");
  }
  SECTION("a running timeout within one heartbeat interval") {
    args.insert(args.end(), {"--running-interval-ms", "200",
                             "--running-timeout-ms", "100"});
    expect_fails_fast(args, "--running-timeout-ms (100) must be longer than "
                            "--running-interval-ms (200)");
  }
  SECTION("a failure check slower than the heartbeat") {
    args.insert(args.end(), {"--failure-check-ms", "500"});
    expect_fails_fast(args, "failure check interval must be positive and at "
                            "most the heartbeat interval");
  }
  SECTION("a shell allow-list entry that is no program name") {
    args.insert(args.end(), {"--shell-allow", "/bin/echo hi"});
    expect_fails_fast(args, "--shell-allow");
  }
}

TEST_CASE("a --peer with a bad port fails fast with one line",
          "[process][config]") {
  auto args = quiet_addrs();
  SECTION("too large") {
    args.insert(args.end(), {"--peer", "127.0.0.1:70000"});
    expect_fails_fast(args, "--peer");
  }
  SECTION("not a number") {
    args.insert(args.end(), {"--peer", "127.0.0.1:http"});
    expect_fails_fast(args, "--peer");
  }
  SECTION("missing") {
    args.insert(args.end(), {"--peer", "127.0.0.1:"});
    expect_fails_fast(args, "--peer");
  }
}

TEST_CASE("a UDP port already in use fails fast with one line",
          "[process][config]") {
  held_port busy(true);
  expect_fails_fast({"--listen", loopback(busy.port()), "--http",
                     loopback(free_port(false))},
                    loopback(busy.port()));
}

TEST_CASE("an HTTP port already in use fails fast with one line",
          "[process][config]") {
  held_port busy(false);
  expect_fails_fast({"--listen", loopback(free_port(true)), "--http",
                     loopback(busy.port())},
                    loopback(busy.port()));
}

TEST_CASE("an unreadable --cluster-key-file fails fast with one line",
          "[process][config]") {
  temp_dir dir;
  auto args = quiet_addrs();
  SECTION("missing file") {
    args.insert(args.end(), {"--cluster-key-file", dir.file("no-such-key")});
    expect_fails_fast(args, "--cluster-key-file");
  }
  SECTION("a directory") {
    args.insert(args.end(), {"--cluster-key-file", dir.path()});
    expect_fails_fast(args, "--cluster-key-file");
  }
  SECTION("a key too short to be safe") {
    args.insert(args.end(),
                {"--cluster-key-file", dir.write("short-key", "abc\n")});
    expect_fails_fast(args, "--cluster-key-file");
  }
}

TEST_CASE("listening off loopback without a cluster key fails fast",
          "[process][config]") {
  // Refused before any socket is opened, so nothing listens on 0.0.0.0.
  expect_fails_fast({"--listen", "0.0.0.0:" + std::to_string(free_port(true)),
                     "--http", loopback(free_port(false))},
                    "cluster key");
}

TEST_CASE("an unknown option in the --config file fails fast with one line",
          "[process][config]") {
  temp_dir dir;
  auto ini = dir.write("node.ini", "id = from-ini\n"
                                   "no-such-setting = 3\n");
  auto args = quiet_addrs();
  args.insert(args.end(), {"--config", ini});
  expect_fails_fast(args, "no-such-setting");
}

TEST_CASE("a missing --config file fails fast with one line",
          "[process][config]") {
  temp_dir dir;
  auto args = quiet_addrs();
  args.insert(args.end(), {"--config", dir.file("missing.ini")});
  expect_fails_fast(args, "--config");
}

TEST_CASE("the --config file sets options and the command line overrides "
          "them",
          "[process][config]") {
  temp_dir dir;
  auto ini_udp = free_port(true);
  auto ini_http = free_port(false);
  std::string text = "# a node configured by file\n"
                     "id = from-ini\n"
                     "heartbeat-ms = 100\n";
  text += "listen = " + loopback(ini_udp) + "\n";
  text += "http = " + loopback(ini_http) + "\n";
  auto ini = dir.write("node.ini", text);

  // The self row of /nodes carries the node's id and advertised address.
  auto self_row = [](std::uint16_t http_port) -> nlohmann::json {
    auto v = get_json(http_port, "/nodes");
    if (!v)
      return {};
    for (auto& row : (*v)["nodes"])
      if (row["id"] == (*v)["self"])
        return row;
    return {};
  };
  auto health_id = [](std::uint16_t http_port) -> std::string {
    auto h = get_json(http_port, "/health");
    return h ? h->value("id", "") : "";
  };

  SECTION("the file alone") {
    process p(DICE_NODE_BIN, {"--config", ini, "--data-dir", dir.file("a.data")},
              dir.file("a.log"));
    REQUIRE(wait_until([&] { return health_id(ini_http) != ""; }, millis(5000)));
    CHECK(health_id(ini_http) == "from-ini");
    CHECK(self_row(ini_http)["addr"] == loopback(ini_udp));
    CHECK(p.stop() == 0);
  }
  SECTION("--id on the command line wins over the file") {
    process p(DICE_NODE_BIN, {"--config", ini, "--id", "from-cli", "--data-dir",
                               dir.file("b.data")},
              dir.file("b.log"));
    REQUIRE(wait_until([&] { return health_id(ini_http) != ""; }, millis(5000)));
    CHECK(health_id(ini_http) == "from-cli");
    // What the command line does not set still comes from the file.
    CHECK(self_row(ini_http)["addr"] == loopback(ini_udp));
    CHECK(self_row(ini_http)["id"] == "from-cli");
    CHECK(p.stop() == 0);
  }
  SECTION("--listen and --http on the command line win over the file") {
    auto cli_udp = free_port(true);
    auto cli_http = free_port(false);
    process p(DICE_NODE_BIN,
              {"--listen", loopback(cli_udp), "--config", ini, "--http",
               loopback(cli_http), "--data-dir", dir.file("c.data")},
              dir.file("c.log"));
    REQUIRE(wait_until([&] { return health_id(cli_http) != ""; }, millis(5000)));
    CHECK(health_id(cli_http) == "from-ini");
    CHECK(self_row(cli_http)["addr"] == loopback(cli_udp));
    // Nothing answers on the file's HTTP port.
    CHECK(http_get(ini_http, "/health", millis(300)).status == 0);
    CHECK(p.stop() == 0);
  }
}

TEST_CASE("an unknown HTTP path answers 404 with a JSON error",
          "[process][config]") {
  cluster c;
  auto& n = c.start(c.make_spec("node-1"));
  auto r = http_get(n.spec().http_port, "/no-such-path");
  CHECK(r.status == 404);
  auto body = r.json();
  REQUIRE(body);
  CHECK(body->contains("error"));
  // A byte that is not UTF-8 in the path (it aborted the node once): the
  // same answer, and the node lives on.
  auto bad = http_get(n.spec().http_port, "/no%FFpath");
  CHECK(bad.status == 404);
  auto bad_body = bad.json();
  REQUIRE(bad_body);
  CHECK(bad_body->contains("error"));
  CHECK(get_json(n.spec().http_port, "/health"));
}

TEST_CASE("dice-node takes --battery, --device-class, --unknown-strategy, "
          "--unknown-direct-tries and --prefetch and shows them in /stats, and a bad "
          "value fails fast",
          "[process][config]") {
  SECTION("given") {
    cluster c;
    auto spec = c.make_spec("node-1");
    spec.extra_args = {"--battery", "30", "--device-class", "2",
                       "--unknown-strategy", "never_want",
                       "--unknown-direct-tries", "4", "--prefetch", "3"};
    auto& n = c.start(spec);
    auto stats = n.stats();
    REQUIRE(stats);
    INFO(stats->dump());
    const auto& r = (*stats)["ranking"];
    CHECK(r["battery"] == 30);
    CHECK(r["battery_refreshed"] == false); // a fixed level is not re-read
    CHECK(r["device_class"] == 2);
    CHECK(r["unknown_strategy"] == "never_want");
    CHECK(r["unknown_direct_tries"] == 4);
    CHECK(r["prefetch"] == 3);
    CHECK((*stats)["queue"]["prefetch"] == 3);
  }
  SECTION("the defaults") {
    cluster c;
    auto spec = c.make_spec("node-1");
    spec.extra_args = {"--battery", "100"};
    auto& n = c.start(spec);
    auto stats = n.stats();
    REQUIRE(stats);
    CHECK((*stats)["ranking"]["device_class"] == 0);
    CHECK((*stats)["ranking"]["unknown_strategy"] == "always_want");
    CHECK((*stats)["ranking"]["unknown_direct_tries"] == "auto");
    CHECK((*stats)["ranking"]["prefetch"] == "auto");
    CHECK((*stats)["queue"]["prefetch"] == 1); // nothing has run yet
  }
  SECTION("bad values") {
    struct bad {
      const char* option;
      const char* value;
      const char* error;
    };
    for (const auto& b : {
           bad{"--unknown-strategy", "sometimes", "sometimes"},
           bad{"--battery", "130", "--battery"},
           bad{"--unknown-direct-tries", "17", "--unknown-direct-tries"},
           bad{"--unknown-direct-tries", "many", "'many' is not auto or a count"},
           bad{"--prefetch", "some", "--prefetch: 'some' is not auto or a count from 0"}}) {
      CAPTURE(b.option, b.value);
      auto args = quiet_addrs();
      args.insert(args.end(), {b.option, b.value});
      expect_fails_fast(args, b.error);
    }
  }
}

TEST_CASE("dice-node --version and dice --version print the version and exit 0",
          "[process][config]") {
  temp_dir dir;
  auto r = run_node_to_exit({"--version"}, dir, "version.log", millis(5000));
  REQUIRE(r.exit_code == 0);
  auto lines = non_empty_lines(r.output);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == std::string("dice-node ") + DICE_TEST_VERSION);
  process cli(DICE_CLI_BIN, {"--version"}, dir.file("cli.log"));
  REQUIRE(cli.wait_exit(millis(5000)) == 0);
  CHECK(cli.log() == std::string("dice ") + DICE_TEST_VERSION + "\n");
}

namespace {

bool port_free(std::uint16_t port, bool udp) {
  int fd = ::socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(port);
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
  ::close(fd);
  return ok;
}

/// Where dice-node keeps the journal of `id` unless told (its --data-dir
/// auto rule).
std::string default_journal_dir(const std::string& id) {
  std::string root = "/var/lib/dice";
  if (::geteuid() != 0) {
    const char* xdg = std::getenv("XDG_STATE_HOME");
    root = xdg != nullptr && *xdg != '\0'
             ? std::string(xdg) + "/dice"
             : std::string(std::getenv("HOME")) + "/.local/state/dice";
  }
  return root + "/dice/" + id;
}

} // namespace

TEST_CASE("dice-node with no arguments starts a usable single node on "
          "loopback and says how others join it", "[process][config]") {
  // The defaults' ports: skipped where something else holds them.
  if (!port_free(7400, true) || !port_free(8400, false)) {
    WARN("127.0.0.1:7400/udp or 127.0.0.1:8400/tcp in use: skipped");
    return;
  }
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  auto journal_dir = default_journal_dir(std::string(host) + "-7400");
  bool existed = std::filesystem::exists(journal_dir);
  temp_dir dir;
  {
    process node(DICE_NODE_BIN, {}, dir.file("node.log"));
    REQUIRE(wait_until(
      [&] { return http_get(8400, "/health").status == 200 || !node.running(); },
      millis(10000)));
    INFO(node.log());
    REQUIRE(node.running());
    CHECK_THAT(node.log(), Contains("listening on 127.0.0.1:7400"));
    CHECK_THAT(node.log(), Contains("--peer 127.0.0.1:7400"));
    CHECK_THAT(node.log(), Contains("--cluster-key-file"));
    CHECK_THAT(node.log(), Contains(journal_dir));
    // The CLI's default node is this one: a task runs there.
    process cli(DICE_CLI_BIN, {"submit", "echo", "hello", "--wait"},
                dir.file("cli.log"));
    CHECK(cli.wait_exit(millis(20000)) == 0);
    INFO(cli.log());
    CHECK_THAT(cli.log(), Contains("1 done"));
    CHECK(node.stop() == 0);
  }
  if (!existed)
    std::filesystem::remove_all(journal_dir);
}
