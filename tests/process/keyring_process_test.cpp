// Rotating the cluster key on a live cluster (issue 32): dice keys install,
// use and remove on three real nodes whose APIs speak HTTPS only, while
// tasks keep coming; no datagram is dropped for its key, every task ends,
// and a node restarted afterwards keeps the new key (the keyring in its
// data dir).
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;

namespace {

// The id GET /keys gives the key that is the only one `n` holds.
std::string only_key(node_process& n) {
  auto k = n.get_json("/keys");
  if (!k || (*k)["keys"].size() != 1)
    return {};
  return (*k)["keys"][0].value("id", "");
}

std::uint64_t unauthenticated(node_process& n) {
  auto s = n.stats();
  return s ? (*s)["wire"]["dropped_by_reason"]["unauthenticated"].get<std::uint64_t>()
           : ~0ULL;
}

} // namespace

TEST_CASE("dice keys install, use and remove rotate the cluster key of a live "
          "cluster over HTTPS with no datagram lost, and the new key outlives a restart",
          "[process][keys]") {
  cluster c;
  auto old_key = c.dir().write("old.key", "the old cluster key, 32 bytes..\n");
  auto new_key = c.dir().write("new.key", "the new cluster key, 32 bytes..\n");
  auto short_key = c.dir().write("short.key", "ten bytes!\n");
  auto tls = make_certificate(c.dir(), "api");
  auto specs = seeded_specs(c, {"key-1", "key-2", "key-3"});
  for (auto& spec : specs) {
    spec.cluster_key_file = old_key;
    spec.tls_cert_file = tls.cert;
    spec.tls_key_file = tls.key;
    c.start(spec);
  }
  INFO(c.logs());
  REQUIRE(wait_until([&] {
    return c[0].alive_count() == 3 && c[1].alive_count() == 3 && c[2].alive_count() == 3;
  }, millis(10000)));
  auto old_id = only_key(c[0]);
  REQUIRE(old_id.size() == 8);

  // Tasks keep coming, to every node in turn, all through the rotation.
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> submitted{0};
  std::thread submitter([&] {
    for (std::size_t i = 0; !stop; ++i) {
      httplib::Client cli(url_of(c[i % 3]));
      cli.set_ca_cert_path(tls.cert.c_str());
      cli.set_connection_timeout(2);
      cli.set_read_timeout(10);
      auto res = cli.Post("/tasks", R"({"kind":"echo","payload":"k","count":5})",
                          "application/json");
      if (res && (res->status == 201 || res->status == 202))
        submitted += 5;
      std::this_thread::sleep_for(millis(20));
    }
  });
  auto wait_some = [&] {
    auto before = submitted.load();
    wait_until([&] { return submitted >= before + 60; }, millis(10000));
  };

  wait_some();
  auto short_install = dice_cli(c, c[0], {"keys", "install", short_key}, "short.log");
  CHECK(short_install.code == 2);
  CHECK_THAT(short_install.output, Contains("shorter than 16 bytes"));

  auto install = dice_cli(c, c[0], {"keys", "install", new_key}, "install.log");
  INFO(install.output);
  REQUIRE(install.code == 0);
  CHECK_THAT(install.output, Contains("key-1: installed") && Contains("key-2: installed")
                               && Contains("key-3: installed"));
  auto k = c[1].get_json("/keys");
  REQUIRE(k);
  REQUIRE((*k)["keys"].size() == 2);
  auto new_id = (*k)["keys"][1].value("id", "");
  CHECK((*k)["primary"] == old_id);
  wait_some();

  auto list = dice_cli(c, c[2], {"keys", "list"}, "list.log");
  INFO(list.output);
  CHECK(list.code == 0);
  CHECK_THAT(list.output, Contains(new_id + "  3/3") && Contains(old_id + "  3/3"));

  // Refused, nothing changed: the primary cannot go; an unknown key cannot sign.
  auto early = dice_cli(c, c[0], {"keys", "remove", old_id}, "early.log");
  CHECK(early.code == 1);
  CHECK_THAT(early.output, Contains("primary") && Contains("nothing changed"));
  auto unknown = dice_cli(c, c[0], {"keys", "use", "0badc0de"}, "unknown.log");
  CHECK(unknown.code == 1);
  CHECK_THAT(unknown.output, Contains("not held by"));

  auto use = dice_cli(c, c[1], {"keys", "use", new_id}, "use.log");
  INFO(use.output);
  REQUIRE(use.code == 0);
  wait_some();
  auto remove = dice_cli(c, c[2], {"keys", "remove", old_id}, "remove.log");
  INFO(remove.output);
  REQUIRE(remove.code == 0);
  CHECK_THAT(remove.output, Contains("key-1: removed " + old_id));
  wait_some();
  stop = true;
  submitter.join();
  auto total = submitted.load();
  REQUIRE(total > 0);

  for (auto& n : c.nodes()) {
    INFO("node " << n->id());
    CHECK(wait_until([&] {
      auto s = n->stats();
      return s && (*s)["tasks"]["done"].get<std::size_t>() == total;
    }, millis(30000)));
    CHECK(unauthenticated(*n) == 0);
    CHECK(only_key(*n) == new_id);
    auto keys = n->get_json("/keys");
    REQUIRE(keys);
    CHECK((*keys)["primary"] == new_id);
    CHECK((*keys)["persisted"] == true);
    CHECK((*keys)["keys"][0]["received"].get<std::uint64_t>() > 0);
    auto s = n->stats();
    REQUIRE(s);
    CHECK((*s)["wire"]["by_key"][new_id]["sent"].get<std::uint64_t>() > 0);
    auto metrics = n->get("/metrics");
    CHECK_THAT(metrics.body, Contains("dice_datagrams_by_key_total{direction=\"sent\",key=\""
                                      + new_id + "\"}"));
  }

  // Restarted with the same data dir (and the old --cluster-key-file): the
  // keyring kept there wins, and the node rejoins under the new key.
  c[2].proc().stop();
  auto& again = c.start(specs[2]);
  CHECK(only_key(again) == new_id);
  CHECK_THAT(again.proc().log(), Contains("keyring: using"));
  CHECK(wait_until([&] { return again.alive_count() == 3 && c[0].alive_count() == 3; },
                   millis(10000)));
  CHECK(unauthenticated(c[0]) == 0);
  CHECK(unauthenticated(again) == 0);
}

TEST_CASE("a malformed keyring file in the data dir stops the node with a one-line error",
          "[process][keys]") {
  temp_dir dir;
  auto data = dir.file("data");
  std::filesystem::create_directories(data);
  std::ofstream(data + "/keyring") << "{\"keys\": [\"not base64!\"], \"primary\": \"x\"}";
  auto r = run_node_to_exit({"--listen", loopback(free_port(true)), "--http", "off",
                             "--data-dir", data},
                            dir, "node.log", millis(5000));
  INFO(r.output);
  REQUIRE(r.exit_code.has_value());
  CHECK(*r.exit_code != 0);
  CHECK(*r.exit_code < 128);
  CHECK_THAT(r.output, Contains("keyring") && Contains("malformed"));
}
