// TLS on the HTTP API between real dice-node processes: the API, the
// dashboard and blob transfers of dice test speak HTTPS only, the CLI
// checks the certificate, and a client that never finishes its handshake
// holds no server thread.
#include <cstdlib>
#include <filesystem>

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tester_cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// A TCP connection to 127.0.0.1:port that sends `bytes` and then nothing.
int silent_connection(std::uint16_t port, const std::string& bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  if (!bytes.empty())
    [[maybe_unused]] auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  return fd;
}

int run_cli(cluster& c, const std::vector<std::string>& args, const std::string& log,
            std::string& output) {
  process cli(DICE_CLI_BIN, args, c.dir().file(log));
  auto code = cli.wait_exit(millis(120000));
  output = cli.log();
  return code ? *code : -1;
}

} // namespace

TEST_CASE("with TLS the API, the dashboard and dice test's blob transfers speak "
          "HTTPS only, and the CLI checks the certificate", "[process][http][tls]") {
  cluster c;
  auto cert = make_certificate(c.dir(), "api");
  auto key = c.dir().write("cluster.key", "a cluster key for the tls test\n");
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(c.dir().path(), fs::perms::owner_all | fs::perms::group_exec
                                    | fs::perms::others_exec);
  // The acceptor copies the project to nobody and runs no tests: the
  // runner must fetch the blob from it, over HTTPS.
  auto acceptor_spec = c.make_spec("acceptor");
  acceptor_spec.cluster_key_file = key;
  acceptor_spec.tls_cert_file = cert.cert;
  acceptor_spec.tls_key_file = cert.key;
  acceptor_spec.extra_args = {"--tester-blob-replicas", "0", "--tester-hello-ms", "200",
                              "--http-threads", "2"};
  auto& acceptor = c.start(acceptor_spec); // healthy over HTTPS
  auto runner_spec = c.make_spec("runner");
  runner_spec.cluster_key_file = key;
  runner_spec.tls_cert_file = cert.cert;
  runner_spec.tls_key_file = cert.key;
  runner_spec.peers = {acceptor.spec().udp_addr()};
  runner_spec.extra_args = {"--tester", "--tester-work-dir", c.dir().file("work-runner"),
                            "--tester-hello-ms", "200"};
  auto& runner = c.start(runner_spec);
  auto base = url_of(acceptor);
  REQUIRE(base.rfind("https://", 0) == 0);

  SECTION("plain HTTP gets no answer, and the failed handshake is counted") {
    CHECK(http_get(acceptor.spec().http_port, "/health").status == 0);
    auto stats = acceptor.stats();
    REQUIRE(stats);
    CHECK((*stats)["http"]["connections_failed"].get<int>() >= 1);
  }

  SECTION("the dashboard and a keep-alive client are served over HTTPS") {
    httplib::Client https(base);
    https.set_ca_cert_path(cert.cert.c_str());
    https.set_keep_alive(true);
    https.set_follow_location(true); // "/" sends the browser to /ui
    auto page = https.Get("/");
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK_THAT(page->body, Contains("<html"));
    for (int i = 0; i < 20; ++i) {
      auto r = https.Get("/health");
      REQUIRE(r);
      CHECK(r->status == 200);
    }
    // A body larger than the waiting room buffers (64 KiB; here a 30 KiB
    // payload and JSON whitespace) is read on a server thread, through TLS
    // as well.
    std::string payload(30 * 1024, 'p');
    auto body = nlohmann::json{{"kind", "echo"}, {"payload", payload}}.dump()
                + std::string(70 * 1024, ' ');
    auto sub = https.Post("/tasks", body, "application/json");
    REQUIRE(sub);
    INFO(sub->body);
    CHECK((sub->status == 201 || sub->status == 202));
  }

  SECTION("connections that never finish their handshake hold no server thread") {
    std::vector<int> silent;
    for (int i = 0; i < 20; ++i)
      silent.push_back(silent_connection(acceptor.spec().http_port, i % 2 ? "\x16\x03" : ""));
    // Two server threads, twenty stalled handshakes: /health still answers.
    auto r = http_get(base, "/health", cert.cert, millis(2000));
    CHECK(r.status == 200);
    for (auto fd : silent)
      if (fd >= 0)
        ::close(fd);
  }

  SECTION("the CLI checks the certificate: refused without the CA, and dice test "
          "runs with the blob fetched over HTTPS") {
    std::string out;
    CHECK(run_cli(c, {"--node", base, "nodes"}, "untrusted.log", out) != 0);
    CHECK_THAT(out, Contains("not trusted") && Contains("--ca-file"));
    CHECK(run_cli(c, {"--node", base, "--ca-file", c.dir().file("missing.pem"), "nodes"},
                  "missing-ca.log", out) == 2);
    CHECK_THAT(out, Contains("--ca-file") && Contains("cannot read"));

    bool known = wait_until([&] {
      auto net = http_get(base, "/network", cert.cert);
      auto j = net.json();
      if (!j)
        return false;
      for (auto& n : (*j)["nodes"])
        if (n["id"] == "runner" && n.value("runs_tests", false)
            && n.value("url", "").rfind("https://", 0) == 0)
          return true;
      return false;
    }, millis(15000));
    INFO(c.logs());
    REQUIRE(known);
    auto project = make_project(c.dir(), "over-tls", 2, 2, 0.0);
    auto code = run_cli(c, {"--node", base, "--ca-file", cert.cert, "--json", "test",
                            project, "--wait", "--timeout", "60"},
                        "test.log", out);
    INFO(out);
    CHECK(code == 0);
    CHECK(last_json_line(out)["totals"]["passed"] == 4);
    auto stats = runner.stats();
    REQUIRE(stats);
    CHECK((*stats)["tests"]["blobs_fetched"].get<int>() > 0);
    CHECK((*stats)["tests"]["blob_fetch_errors"] == 0);
  }
}

TEST_CASE("dice-node refuses a TLS key that is missing or not the certificate's",
          "[process][http][tls]") {
  temp_dir dir;
  auto one = make_certificate(dir, "one");
  auto two = make_certificate(dir, "two");
  auto base = std::vector<std::string>{"--listen", loopback(free_port(true)), "--http",
                                       loopback(free_port(false)), "--data-dir", "none"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_node_to_exit(args, dir, "node.log", millis(5000));
  };
  auto mismatched = with({"--http-tls-cert-file", one.cert, "--http-tls-key-file", two.key});
  INFO(mismatched.output);
  REQUIRE(mismatched.exit_code.has_value());
  CHECK(*mismatched.exit_code != 0);
  CHECK_THAT(mismatched.output, Contains("--http-tls-key-file") && Contains("two.key")
                                  && Contains("does not belong"));

  auto alone = with({"--http-tls-cert-file", one.cert});
  INFO(alone.output);
  REQUIRE(alone.exit_code.has_value());
  CHECK(*alone.exit_code == 2);
  CHECK_THAT(alone.output, Contains("--http-tls-key-file"));

  auto unreadable = with({"--http-tls-cert-file", dir.file("none.crt"),
                          "--http-tls-key-file", one.key});
  INFO(unreadable.output);
  REQUIRE(unreadable.exit_code.has_value());
  CHECK(*unreadable.exit_code != 0);
  CHECK_THAT(unreadable.output, Contains("--http-tls-cert-file") && Contains("none.crt"));
}
