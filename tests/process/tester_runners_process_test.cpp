// dice test's runners and splits as a user meets them through the CLI on
// real dice-node processes: ctest on a CMake project, pytest per test id,
// commands given with --module, and a project sent as a .zip.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "tester_cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// Runs `dice --json test ARGS --wait` against `n`; the exit code and the
/// final report.
std::pair<int, nlohmann::json> run_cli(cluster& c, node_process& n,
                                       std::vector<std::string> args,
                                       const std::string& log) {
  std::vector<std::string> argv{"--node", url_of(n), "--json", "test"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--wait");
  process cli(DICE_CLI_BIN, argv, c.dir().file(log));
  auto code = cli.wait_exit(millis(240000));
  INFO("CLI:\n" << cli.log() << "\nnodes:\n" << c.logs());
  REQUIRE(code);
  return {*code, last_json_line(cli.log())};
}

std::map<std::string, nlohmann::json> by_module(const nlohmann::json& report) {
  std::map<std::string, nlohmann::json> out;
  for (auto& m : report["modules"])
    out[m["module"].get<std::string>()] = m;
  return out;
}

} // namespace

TEST_CASE("dice test --runner ctest builds a CMake project in each workspace and "
          "runs a task per test", "[process][tester]") {
  cluster c;
  auto nodes = start_testers(c, 2);
  auto [code, report] = run_cli(c, *nodes[1], {DICE_CTEST_PROJECT, "--runner", "ctest",
                                               "--timeout", "120"}, "cli.log");
  INFO(report.dump(2) << c.logs());
  CHECK(code == 1); // a test failed
  CHECK(report["state"] == "done");
  CHECK(report["runner"] == "ctest");
  CHECK(report["modules_total"] == 3);
  auto& t = report["totals"];
  CHECK(t["tests"] == 3);
  CHECK(t["passed"] == 1);
  CHECK(t["failed"] == 2);
  CHECK(t["errors"] == 0);
  auto m = by_module(report);
  REQUIRE(m.count("adds_up"));
  REQUIRE(m.count("wrong_on_purpose"));
  REQUIRE(m.count("crashes"));
  CHECK(m["adds_up"]["counts"]["passed"] == 1);
  auto& wrong = m["wrong_on_purpose"]["tests"];
  REQUIRE(wrong.size() == 1);
  CHECK(wrong[0]["id"] == "wrong_on_purpose");
  CHECK(wrong[0]["outcome"] == "failed");
  CHECK_THAT(wrong[0]["output"].get<std::string>(), Contains("two and two make four"));
  auto& crash = m["crashes"]["tests"];
  REQUIRE(crash.size() == 1);
  CHECK(crash[0]["outcome"] == "failed");
  CHECK_THAT(crash[0]["output"].get<std::string>(), Contains("Subprocess aborted"));
  // The same report from the other node; no workspace (nor build) left.
  auto id = report["id"].get<std::string>();
  auto other = get_json(nodes[0]->spec().http_port, "/evaluation/" + id, millis(3000));
  REQUIRE(other);
  CHECK(other->dump() == report.dump());
  for (auto* n : nodes)
    CHECK(workspaces_left(c.dir().file("work-" + n->id())) == 0);
}

TEST_CASE("dice test: per test id, commands given with --module, and a .zip project",
          "[process][tester]") {
  cluster c;
  auto nodes = start_testers(c, 2);
  auto project = make_project(c.dir(), "ids", 2, 3, 0.0);

  // --split test: a task per test id.
  auto [code, report] = run_cli(c, *nodes[0], {project, "--split", "test"}, "split.log");
  INFO(report.dump(2));
  CHECK(code == 0);
  CHECK(report["state"] == "done");
  CHECK(report["modules_total"] == 6);
  CHECK(report["totals"]["passed"] == 6);
  CHECK(by_module(report).count("tests/test_m1.py::test_2") == 1);

  // --runner cmd: each --module is a command run in the project.
  auto [cmd_code, cmd] = run_cli(c, *nodes[1], {project, "--runner", "cmd", "--module",
                                                "test -f tests/test_m0.py", "--module",
                                                "test -f no_such_file"}, "cmd.log");
  INFO(cmd.dump(2));
  CHECK(cmd_code == 1);
  CHECK(cmd["modules_total"] == 2);
  CHECK(cmd["totals"]["passed"] == 1);
  CHECK(cmd["totals"]["failed"] == 1);
  auto cm = by_module(cmd);
  CHECK(cm["test -f tests/test_m0.py"]["counts"]["passed"] == 1);
  CHECK_THAT(cm["test -f no_such_file"]["tests"][0]["output"].get<std::string>(),
             Contains("exit status 1"));

  // A .zip archive is sent as it is.
  auto zip = c.dir().file("ids.zip");
  auto pack = "cd " + project + " && python3 -m zipfile -c " + zip + " tests";
  REQUIRE(std::system(pack.c_str()) == 0);
  auto [zip_code, zipped] = run_cli(c, *nodes[0], {zip}, "zip.log");
  INFO(zipped.dump(2));
  CHECK(zip_code == 0);
  CHECK(zipped["name"] == "ids");
  CHECK(zipped["modules_total"] == 2);
  CHECK(zipped["totals"]["passed"] == 6);
  for (auto* n : nodes)
    CHECK(workspaces_left(c.dir().file("work-" + n->id())) == 0);
}
