// dice test's project blobs between real dice-node processes: a node that
// runs a module without a copy of the project fetches it over HTTP, with
// the cluster key's HMAC; a request without it, or with another key's, is
// refused. And secrets a root --tester node would expose to the tests.
#include <catch2/catch.hpp>

#include <filesystem>

#include <httplib.h>
#include <unistd.h>

#include "tester/blob_auth.hpp"
#include "tester_cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("dice test with a cluster key: the runner fetches the project blob over "
          "HTTP with the key's HMAC, and another key is refused", "[process][tester]") {
  cluster c;
  auto key = c.dir().write("cluster.key", "a cluster key for the blob test\n");
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(c.dir().path(), fs::perms::owner_all | fs::perms::group_exec
                                    | fs::perms::others_exec);
  // The acceptor runs no tests and copies the blob to nobody: the runner
  // has to fetch it.
  auto acceptor_spec = c.make_spec("acceptor");
  acceptor_spec.cluster_key_file = key;
  acceptor_spec.extra_args = {"--tester-blob-replicas", "0", "--tester-hello-ms", "200"};
  auto& acceptor = c.start(acceptor_spec);
  auto runner_spec = c.make_spec("runner");
  runner_spec.cluster_key_file = key;
  runner_spec.peers = {acceptor.spec().udp_addr()};
  runner_spec.extra_args = {"--tester", "--tester-work-dir", c.dir().file("work-runner"),
                            "--tester-hello-ms", "200"};
  auto& runner = c.start(runner_spec);
  bool known = wait_until([&] {
    auto net = get_json(acceptor.spec().http_port, "/network");
    if (!net)
      return false;
    for (auto& n : (*net)["nodes"])
      if (n["id"] == "runner" && n.value("runs_tests", false))
        return true;
    return false;
  }, millis(15000));
  INFO(c.logs());
  REQUIRE(known);

  auto project = make_project(c.dir(), "fetched", 2, 2, 0.0);
  process cli(DICE_CLI_BIN, {"--node", url_of(acceptor), "--json", "test", project,
                             "--wait", "--timeout", "60"},
              c.dir().file("cli.log"));
  auto code = cli.wait_exit(millis(120000));
  INFO(cli.log());
  REQUIRE(code);
  CHECK(*code == 0);
  auto report = last_json_line(cli.log());
  CHECK(report["totals"]["passed"] == 4);
  auto stats = runner.stats();
  REQUIRE(stats);
  CHECK((*stats)["tests"]["blobs_fetched"].get<int>() > 0);
  CHECK((*stats)["tests"]["blob_fetch_errors"] == 0);

  // The blob by hand: the right tag gets it, another key's or none is refused.
  auto sha = report["blob"].get<std::string>();
  httplib::Client http("127.0.0.1", acceptor.spec().http_port);
  auto with_tag = [&](const std::string& tag) {
    httplib::Headers h;
    if (!tag.empty())
      h.emplace(dice::blob_auth_header, tag);
    auto r = http.Get(("/blobs/" + sha).c_str(), h);
    return r ? r->status : 0;
  };
  CHECK(with_tag(dice::blob_auth("a cluster key for the blob test", "GET", sha)) == 200);
  CHECK(with_tag(dice::blob_auth("another key of sixteen bytes", "GET", sha)) == 401);
  CHECK(with_tag("") == 401);
  CHECK(with_tag(dice::blob_auth("a cluster key for the blob test", "PUT", sha)) == 401);
}

TEST_CASE("a root --tester node refuses a key or token file others may read",
          "[process][tester]") {
  if (::geteuid() != 0)
    return; // only root runs tests as another user
  temp_dir dir;
  auto key = dir.write("open.key", "a cluster key readable by all\n");
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write
                         | fs::perms::others_read);
  auto r = run_node_to_exit({"--id", "t-x", "--listen", "127.0.0.1:0", "--http", "off",
                             "--data-dir", "none", "--tester", "--cluster-key-file", key},
                            dir, "node.log", millis(10000));
  REQUIRE(r.exit_code);
  CHECK(*r.exit_code != 0);
  CHECK_THAT(r.output, Contains("--cluster-key-file"));
  CHECK_THAT(r.output, Contains("readable by other users"));
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
  auto token = dir.write("open.token", "a-bearer-token-readable-by-all\n");
  fs::permissions(token, fs::perms::owner_read | fs::perms::owner_write
                           | fs::perms::others_read);
  auto t = run_node_to_exit({"--id", "t-y", "--listen", "127.0.0.1:0", "--http", "off",
                             "--data-dir", "none", "--tester", "--cluster-key-file", key,
                             "--http-token-file", token},
                            dir, "node2.log", millis(10000));
  REQUIRE(t.exit_code);
  CHECK(*t.exit_code != 0);
  CHECK_THAT(t.output, Contains("--http-token-file"));
  CHECK_THAT(t.output, Contains("chmod o-r"));
}
