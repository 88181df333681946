#include "tester_cluster.hpp"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

namespace fs = std::filesystem;

namespace dice::test {

std::vector<node_process*> start_testers(cluster& c, std::size_t n,
                                         std::vector<std::string> extra) {
  std::vector<node_process*> out;
  // The runner's user (nobody, as the tests run as root) must reach the
  // work dirs inside; others may pass through, not list.
  fs::permissions(c.dir().path(), fs::perms::owner_all | fs::perms::group_exec
                                    | fs::perms::others_exec);
  for (std::size_t i = 0; i < n; ++i) {
    auto spec = c.make_spec("t-" + std::to_string(i));
    spec.data_dir = c.dir().file("data-" + spec.id);
    spec.extra_args = {"--tester", "--tester-work-dir", c.dir().file("work-" + spec.id),
                       "--slots", "1", "--tester-hello-ms", "200"};
    spec.extra_args.insert(spec.extra_args.end(), extra.begin(), extra.end());
    if (i > 0)
      spec.peers = {out[0]->spec().udp_addr()};
    out.push_back(&c.start(spec));
  }
  bool all_known = wait_until([&] {
    for (auto* node : out) {
      auto net = get_json(node->spec().http_port, "/network");
      if (!net || (*net)["nodes"].size() != n)
        return false;
      for (auto& entry : (*net)["nodes"])
        if (!entry.contains("http"))
          return false;
    }
    return true;
  }, millis(15000));
  INFO(c.logs());
  REQUIRE(all_known);
  return out;
}

std::string make_project(const temp_dir& dir, const std::string& name, int modules,
                         int tests, double sleep_s) {
  auto root = dir.file(name);
  fs::create_directories(root + "/tests");
  for (int m = 0; m < modules; ++m) {
    std::ofstream f(root + "/tests/test_m" + std::to_string(m) + ".py");
    f << "import time\n";
    for (int t = 0; t < tests; ++t)
      f << "\ndef test_" << t << "():\n    time.sleep(" << sleep_s << ")\n    assert "
        << t << " == " << t << "\n";
  }
  return root;
}

nlohmann::json report_when_done(node_process& n, const std::string& id, millis timeout) {
  nlohmann::json last;
  wait_until([&] {
    auto r = get_json(n.spec().http_port, "/evaluation/" + id, millis(3000));
    if (r)
      last = *r;
    return r && (*r)["state"] == "done";
  }, timeout, millis(200));
  return last;
}

bool wait_running_on(node_process& n, const std::string& id, const std::string& runner,
                     millis timeout) {
  return wait_until([&] {
    auto r = get_json(n.spec().http_port, "/evaluation/" + id);
    if (!r)
      return false;
    for (auto& m : (*r)["modules"])
      if (m["state"] == "running" && m.value("node", "") == runner)
        return true;
    return false;
  }, timeout, millis(100));
}

std::string submit(cluster& c, node_process& n, const std::string& project,
                   const std::string& log) {
  process cli(DICE_CLI_BIN, {"--node", url_of(n), "--json", "test", project, "--timeout", "60"},
              c.dir().file(log));
  auto code = cli.wait_exit(millis(60000));
  INFO(cli.log() << c.logs());
  REQUIRE(code == 0);
  auto answer = last_json_line(cli.log());
  REQUIRE(answer.contains("id"));
  return answer["id"].get<std::string>();
}

std::size_t workspaces_left(const std::string& work_dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(work_dir, ec))
    if (e.path().filename().string().rfind("ws-", 0) == 0
        || e.path().filename().string().rfind("clone-", 0) == 0)
      ++n;
  return n;
}

} // namespace dice::test
