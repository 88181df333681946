// dice test as a user meets it: real dice-node processes run a project's
// tests through the dice CLI, and the report is exact and the same from
// every node, also when a node dies mid-run or the node that accepted the
// evaluation dies; projects that are not projects get a clear error.
#include <regex>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include "tester_cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// Sends the head of a request that announces `length` body bytes, then a
/// few of them, and returns what the node answers within 5 s: what a client
/// uploading that much meets before it has sent it.
std::string announce_upload(std::uint16_t port, unsigned long long length) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return {};
  }
  // Headers only: the answer must come without any body byte. (Body bytes
  // sent but never read make the node's close a TCP reset, which may
  // discard its 413 before this side reads it.)
  std::string head = "POST /evaluation HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     "Content-Type: application/octet-stream\r\nContent-Length: "
                     + std::to_string(length) + "\r\n\r\n";
  [[maybe_unused]] auto sent = ::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  std::string answer;
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, 5000) > 0) {
    auto n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0)
      break;
    answer.append(buf, static_cast<std::size_t>(n));
    if (answer.find("}") != std::string::npos)
      break;
  }
  ::close(fd);
  return answer;
}

} // namespace

TEST_CASE("dice test runs a project on three nodes: the report is exact and the "
          "same from every node", "[process][tester]") {
  cluster c;
  auto nodes = start_testers(c, 3);
  auto junit = c.dir().file("report.xml");
  process cli(DICE_CLI_BIN,
              {"--node", url_of(*nodes[0]), "--json", "test", DICE_SAMPLE_PROJECT,
               "--timeout", "5", "--reruns", "1", "--wait", "--junit", junit},
              c.dir().file("cli.log"));
  auto code = cli.wait_exit(millis(120000));
  INFO("CLI:\n" << cli.log() << "\nnodes:\n" << c.logs());
  REQUIRE(code);
  CHECK(*code == 1); // a test failed
  auto report = last_json_line(cli.log());
  REQUIRE(report.is_object());
  CHECK(report["state"] == "done");
  CHECK(report["modules_total"] == 6);
  auto& t = report["totals"];
  CHECK(t["tests"] == 13);
  CHECK(t["passed"] == 9);
  CHECK(t["failed"] == 1);
  CHECK(t["skipped"] == 1);
  CHECK(t["errors"] == 2);
  CHECK(t["flaky"] == 1);

  std::map<std::string, nlohmann::json> by_module;
  for (auto& m : report["modules"])
    by_module[m["module"].get<std::string>()] = m;
  CHECK_THAT(by_module["tests/test_crash.py"]["error"].get<std::string>(),
             Contains("killed by signal"));
  CHECK_THAT(by_module["tests/test_hang.py"]["error"].get<std::string>(),
             Contains("timed out after 5000 ms"));
  bool failure_shown = false;
  for (auto& tc : by_module["tests/test_fail.py"]["tests"])
    if (tc["outcome"] == "failed") {
      CHECK(tc["id"] == "tests/test_fail.py::test_wrong_on_purpose");
      CHECK_THAT(tc["output"].get<std::string>(), Contains("two and two make four"));
      failure_shown = true;
    }
  CHECK(failure_shown);
  CHECK(by_module["tests/test_flaky.py"]["tests"][0]["flaky"] == true);

  // Every node holds the same report: it is computed from replicated tasks.
  auto id = report["id"].get<std::string>();
  for (auto* n : nodes) {
    auto other = get_json(n->spec().http_port, "/evaluation/" + id, millis(3000));
    REQUIRE(other);
    CHECK(other->dump() == report.dump());
    auto list = get_json(n->spec().http_port, "/evaluation", millis(3000));
    REQUIRE(list);
    REQUIRE((*list)["evaluations"].size() == 1);
    CHECK((*list)["evaluations"][0]["totals"] == t);
  }
  // The runs cleaned up after themselves, and /stats counted them.
  std::uint64_t modules = 0;
  for (auto* n : nodes) {
    CHECK(workspaces_left(c.dir().file("work-" + n->id())) == 0);
    auto stats = n->stats();
    REQUIRE(stats);
    modules += (*stats)["tests"]["modules"].get<std::uint64_t>();
    CHECK((*stats)["tests"]["workspaces_left"] == 0);
  }
  CHECK(modules >= 6);
  std::ifstream xml(junit);
  std::string text((std::istreambuf_iterator<char>(xml)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Contains("test_wrong_on_purpose"));
  CHECK_THAT(text, Contains("failures=\"1\""));
  // dice test --list, from another node: the evaluation, done, 9 passed,
  // 3 failed or in error.
  process list(DICE_CLI_BIN, {"--node", url_of(*nodes[2]), "test", "--list"},
               c.dir().file("list.log"));
  REQUIRE(list.wait_exit(millis(10000)) == 0);
  INFO(list.log());
  CHECK(std::regex_search(list.log(), std::regex(id + R"( +\S+ +done +6/6 +9 +3\n)")));
}

TEST_CASE("dice test on one node runs light modules in one process and still "
          "reports each module exactly", "[process][tester]") {
  cluster c;
  // Eight files of one size: on one node, four tasks of two files each.
  auto root = c.dir().file("light-project");
  fs::create_directories(root + "/tests");
  const std::vector<std::pair<std::string, std::string>> files{
    {"test_1_pass", "def test_one():\n    assert 1 + 1 == 2\n"},
    {"test_2_crash", "import os\n\ndef test_crash():\n    os.abort()\n"},
    {"test_3_pass", "def test_three():\n    assert 3 * 3 == 9\n"},
    {"test_4_fail", "def test_wrong():\n    assert 2 + 2 == 5, 'on purpose'\n"},
    {"test_5_pass", "def test_five():\n    assert 'five'\n"},
    {"test_6_pass", "def test_six():\n    assert 6 > 5\n"},
    {"test_7_skip", "import pytest\n\n@pytest.mark.skip\ndef test_later():\n    pass\n"},
    {"test_8_pass", "def test_eight():\n    assert 8\n"}};
  for (const auto& [name, code] : files) {
    std::ofstream f(root + "/tests/" + name + ".py");
    f << code << "# " << std::string(200 - code.size() - 3, '.') << "\n";
  }
  auto nodes = start_testers(c, 1);
  process cli(DICE_CLI_BIN,
              {"--node", url_of(*nodes[0]), "--json", "test", root, "--timeout", "30",
               "--wait"},
              c.dir().file("cli.log"));
  auto code = cli.wait_exit(millis(120000));
  INFO("CLI:\n" << cli.log() << "\nnodes:\n" << c.logs());
  REQUIRE(code);
  CHECK(*code == 1);
  auto report = last_json_line(cli.log());
  REQUIRE(report.is_object());
  CHECK(report["state"] == "done");
  CHECK(report["modules_total"] == 8);
  std::map<std::string, std::set<std::string>> tasks; // task id -> its modules
  std::map<std::string, nlohmann::json> by_module;
  for (auto& m : report["modules"]) {
    tasks[m["id"].get<std::string>()].insert(m["module"].get<std::string>());
    by_module[m["module"].get<std::string>()] = m;
  }
  CHECK(tasks.size() == 4);
  CHECK(by_module.size() == 8);
  // The crash took the first pair's process down: each of the two ran
  // again alone, so test_1 passed and the error names test_2.
  auto& t = report["totals"];
  CHECK(t["tests"] == 8);
  CHECK(t["passed"] == 5);
  CHECK(t["failed"] == 1);
  CHECK(t["skipped"] == 1);
  CHECK(t["errors"] == 1);
  CHECK(by_module["tests/test_1_pass.py"]["counts"]["passed"] == 1);
  CHECK_FALSE(by_module["tests/test_1_pass.py"].contains("error"));
  CHECK_THAT(by_module["tests/test_2_crash.py"]["error"].get<std::string>(),
             Contains("killed by signal"));
  CHECK(by_module["tests/test_4_fail.py"]["tests"][0]["id"]
        == "tests/test_4_fail.py::test_wrong");
  CHECK(by_module["tests/test_7_skip.py"]["counts"]["skipped"] == 1);
  CHECK(workspaces_left(c.dir().file("work-" + nodes[0]->id())) == 0);
}

TEST_CASE("dice test: a node killed mid-run has its modules run elsewhere",
          "[process][tester]") {
  cluster c;
  auto nodes = start_testers(c, 3);
  auto project = make_project(c.dir(), "slow-project", 6, 2, 1.0);
  auto id = submit(c, *nodes[0], project, "submit.log");
  // Kill t-2 while it runs a module.
  bool running_on_victim = wait_running_on(*nodes[0], id, "t-2", millis(30000));
  INFO(c.logs());
  REQUIRE(running_on_victim);
  nodes[2]->proc().kill_now();
  auto report = report_when_done(*nodes[1], id, millis(90000));
  INFO(report.dump(2));
  REQUIRE(report["state"] == "done");
  CHECK(report["totals"]["passed"] == 12);
  CHECK(report["totals"]["tests"] == 12);
  CHECK(report["totals"]["errors"] == 0);
  // The same counts as plain pytest on the same project.
  process pytest("/usr/bin/python3", {"-m", "pytest", "-q", "-p", "no:cacheprovider",
                                      project},
                 c.dir().file("pytest.log"));
  REQUIRE(pytest.wait_exit(millis(60000)) == 0);
  CHECK_THAT(pytest.log(), Contains("12 passed"));
  auto from_0 = get_json(nodes[0]->spec().http_port, "/evaluation/" + id, millis(3000));
  REQUIRE(from_0);
  CHECK(from_0->dump() == report.dump());
  // The survivors cleaned up after themselves.
  for (auto* n : {nodes[0], nodes[1]})
    CHECK(workspaces_left(c.dir().file("work-" + n->id())) == 0);
}

TEST_CASE("dice test: the evaluation completes when the node that accepted it dies",
          "[process][tester]") {
  cluster c;
  auto nodes = start_testers(c, 3);
  auto project = make_project(c.dir(), "orphan-project", 4, 2, 0.5);
  auto id = submit(c, *nodes[0], project, "submit.log");
  nodes[0]->proc().kill_now();
  // Followed from another node, with the CLI, to the end.
  process cli(DICE_CLI_BIN, {"--node", url_of(*nodes[1]), "--json", "test", "--follow", id,
                             "--wait-timeout", "90"},
              c.dir().file("follow.log"));
  auto code = cli.wait_exit(millis(100000));
  INFO("CLI:\n" << cli.log() << "\nnodes:\n" << c.logs());
  REQUIRE(code);
  CHECK(*code == 0);
  auto report = last_json_line(cli.log());
  CHECK(report["state"] == "done");
  CHECK(report["totals"]["passed"] == 8);
  CHECK(report["origin"] == "t-0");
  auto from_2 = report_when_done(*nodes[2], id, millis(10000));
  CHECK(from_2.dump() == report.dump());
  for (auto* n : {nodes[1], nodes[2]})
    CHECK(workspaces_left(c.dir().file("work-" + n->id())) == 0);
}

TEST_CASE("dice test: a project given as a git repository is cloned by the node",
          "[process][tester]") {
  cluster c;
  auto nodes = start_testers(c, 2);
  auto project = make_project(c.dir(), "repo", 2, 3, 0.0);
  auto git = "cd " + project + " && git init -q && git add . && git -c user.name=t "
             "-c user.email=t@t commit -qm init";
  REQUIRE(std::system(git.c_str()) == 0);
  httplib::Client http("127.0.0.1", nodes[1]->spec().http_port);
  http.set_read_timeout(60, 0);
  auto r = http.Post("/evaluation", nlohmann::json{{"url", project}}.dump(),
                     "application/json");
  REQUIRE(r);
  INFO(r->body << c.logs());
  REQUIRE(r->status == 201);
  auto id = nlohmann::json::parse(r->body)["id"].get<std::string>();
  auto report = report_when_done(*nodes[0], id, millis(60000));
  CHECK(report["state"] == "done");
  CHECK(report["name"] == "repo");
  CHECK(report["totals"]["passed"] == 6);
  auto bad = http.Post("/evaluation", R"({"url": "/no/such/repository"})",
                       "application/json");
  REQUIRE(bad);
  CHECK(bad->status == 400);
  CHECK_THAT(bad->body, Contains("git clone"));
}

TEST_CASE("dice test: what is not a test project gets a clear error",
          "[process][tester]") {
  cluster c;
  auto nodes = start_testers(c, 1, {"--tester-max-upload-mb", "1"});
  auto& n = *nodes[0];
  httplib::Client http("127.0.0.1", n.spec().http_port);
  http.set_read_timeout(30, 0);
  auto upload = [&](const std::string& body) {
    return http.Post("/evaluation?runner=pytest", body, "application/octet-stream");
  };
  auto error_of = [](const httplib::Result& r) {
    auto j = nlohmann::json::parse(r->body, nullptr, false);
    return j.is_object() ? j.value("error", "") : r->body;
  };
  SECTION("an empty upload") {
    auto r = upload("");
    REQUIRE(r);
    CHECK(r->status == 400);
    CHECK_THAT(error_of(r), Contains("empty upload"));
  }
  SECTION("an archive without files") {
    auto empty = c.dir().file("empty.tar.gz");
    REQUIRE(std::system(("tar czf " + empty + " -T /dev/null").c_str()) == 0);
    std::ifstream in(empty, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto r = upload(bytes);
    REQUIRE(r);
    CHECK(r->status == 400);
    CHECK_THAT(error_of(r), Contains("holds no files"));
  }
  SECTION("a broken archive") {
    auto r = upload(std::string(4096, '\x42'));
    REQUIRE(r);
    CHECK(r->status == 400);
    CHECK_THAT(error_of(r), Contains("not a test project"));
  }
  SECTION("a 2 GB upload is refused before its body is read") {
    // The answer must come at once, not after a read timeout spent
    // discarding a body that never comes (announce_upload waits 5 s).
    auto answer = announce_upload(n.spec().http_port, 2ULL << 30);
    CHECK_THAT(answer, Contains("413"));
    CHECK_THAT(answer, Contains("too large"));
    CHECK(n.healthy());
  }
  SECTION("a project without tests, through the CLI") {
    auto dir = c.dir().file("no-tests");
    fs::create_directories(dir);
    std::ofstream(dir + "/README.md") << "nothing to test\n";
    process cli(DICE_CLI_BIN, {"--node", url_of(n), "test", dir, "--wait"},
                c.dir().file("cli.log"));
    auto code = cli.wait_exit(millis(30000));
    REQUIRE(code);
    CHECK(*code == 1);
    CHECK_THAT(cli.log(), Contains("no test modules found"));
  }
  SECTION("a path that is no project, through the CLI") {
    process cli(DICE_CLI_BIN, {"--node", url_of(n), "test", c.dir().file("nowhere")},
                c.dir().file("cli.log"));
    auto code = cli.wait_exit(millis(30000));
    REQUIRE(code);
    CHECK(*code == 1);
    CHECK_THAT(cli.log(), Contains("no such directory"));
  }
  auto list = get_json(n.spec().http_port, "/evaluation");
  REQUIRE(list);
  CHECK((*list)["evaluations"].empty());
}

TEST_CASE("dice test: a root node refuses a work dir the runner's user cannot reach",
          "[process][tester]") {
  if (::geteuid() != 0)
    return; // only root runs tests as another user
  temp_dir dir; // mode 0700: nobody cannot pass through
  auto r = run_node_to_exit({"--id", "t-x", "--listen", "127.0.0.1:0", "--http", "off",
                             "--data-dir", "none", "--tester", "--tester-work-dir",
                             dir.file("work")},
                            dir, "node.log", millis(10000));
  REQUIRE(r.exit_code);
  CHECK(*r.exit_code != 0);
  CHECK_THAT(r.output, Contains("--tester-work-dir"));
  CHECK_THAT(r.output, Contains("cannot pass through") && Contains("(mode 0700")
                         && Contains("chmod o+x"));
}
