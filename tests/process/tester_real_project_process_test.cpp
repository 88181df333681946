// dice test on a test suite this project did not write: mpmath's, as
// Debian's python3-mpmath installs it (scripts/setup installs it). The
// counts match what plain pytest reports on the same tree, also with a
// node killed while it runs a module.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tester_cluster.hpp"

using namespace dice::test;
namespace fs = std::filesystem;

namespace {

const std::string suite = "/usr/lib/python3/dist-packages/mpmath/tests";

// The suite without its two longest files (19 s and 8 s of the ~45 s), so
// the run stays short; the other 34 files are as Debian ships them.
std::string copy_suite(const temp_dir& dir) {
  auto root = dir.file("mpmath-suite");
  fs::create_directories(root + "/tests");
  for (const auto& entry : fs::directory_iterator(suite)) {
    auto name = entry.path().filename().string();
    if (entry.is_regular_file() && name != "test_functions2.py"
        && name != "test_calculus.py")
      fs::copy_file(entry.path(), root + "/tests/" + name);
  }
  return root;
}

// "338 passed, 2 xfailed in 40.1s" -> {"passed": 338, "xfailed": 2}
std::map<std::string, int> pytest_counts(const std::string& log) {
  std::map<std::string, int> out;
  static const std::regex part(R"((\d+) (passed|failed|skipped|xfailed|xpassed|errors?))");
  auto last = log.rfind(" in ");
  auto line_start = log.rfind('\n', last == std::string::npos ? 0 : last);
  auto line = log.substr(line_start == std::string::npos ? 0 : line_start);
  for (std::sregex_iterator i(line.begin(), line.end(), part), end; i != end; ++i)
    out[(*i)[2]] += std::stoi((*i)[1]);
  return out;
}

} // namespace

TEST_CASE("dice test on mpmath's own suite reports what plain pytest reports, "
          "with a node killed mid-run", "[process][tester]") {
  INFO("needs python3-mpmath (scripts/setup installs it)");
  REQUIRE(fs::is_directory(suite));
  cluster c;
  auto project = copy_suite(c.dir());
  process pytest("/usr/bin/python3", {"-m", "pytest", "-q", "-p", "no:cacheprovider",
                                      project},
                 c.dir().file("pytest.log"));
  auto plain_code = pytest.wait_exit(millis(180000));
  REQUIRE(plain_code);
  auto plain = pytest_counts(pytest.log());
  INFO("plain pytest:\n" << pytest.log().substr(pytest.log().size() > 2000
                                                  ? pytest.log().size() - 2000 : 0));
  REQUIRE(plain["passed"] > 200);

  auto nodes = start_testers(c, 3);
  auto id = submit(c, *nodes[0], project, "submit.log");
  bool running_on_victim = wait_running_on(*nodes[0], id, "t-2", millis(60000));
  INFO(c.logs());
  REQUIRE(running_on_victim);
  nodes[2]->proc().kill_now();
  auto report = report_when_done(*nodes[1], id, millis(240000));
  INFO(report["totals"].dump());
  REQUIRE(report["state"] == "done");
  const auto& t = report["totals"];
  CHECK(t["passed"] == plain["passed"]);
  CHECK(t["failed"] == plain["failed"]);
  // pytest's xfailed (skips of type pytest.xfail in its JUnit report) are
  // counted apart, as pytest counts them.
  CHECK(t["skipped"] == plain["skipped"]);
  CHECK(t["xfailed"] == plain["xfailed"]);
  CHECK(t["errors"] == plain["error"] + plain["errors"]);
  CHECK(report["modules_total"] == 29); // the test_*.py files
  // What t-2 was running ran again elsewhere, and the survivors say the
  // same.
  bool rerun = false;
  for (auto& m : report["modules"])
    rerun = rerun || (m.value("attempts", 0) >= 2 && m.value("node", "") != "t-2");
  CHECK(rerun);
  auto from_0 = get_json(nodes[0]->spec().http_port, "/evaluation/" + id, millis(3000));
  REQUIRE(from_0);
  CHECK(from_0->dump() == report.dump());
  for (auto* n : {nodes[0], nodes[1]})
    CHECK(workspaces_left(c.dir().file("work-" + n->id())) == 0);
}
