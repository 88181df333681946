// Following submitted tasks as a user of the CLI does: the ids come first,
// a wait survives losing the node it talks to, `dice wait` follows a batch
// later, and the exit code says how the wait ended.
#include <chrono>
#include <csignal>
#include <fstream>

#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;

namespace {


std::size_t done_count(const node_process& n) {
  auto s = n.stats();
  return s ? (*s)["tasks"]["done"].get<std::size_t>() : 0;
}

std::size_t lines_in(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.empty() ? 0 : 1;
  return n;
}

/// Runs `program args` on a pseudo-terminal of `cols` columns, as in a
/// terminal (tmux, ssh) of that width; returns everything it wrote and its
/// exit code (-1 if it had to be killed after `timeout`).
std::pair<std::string, int> run_in_terminal(const std::string& program,
                                            std::vector<std::string> args,
                                            unsigned short cols, millis timeout) {
  winsize ws{};
  ws.ws_row = 24;
  ws.ws_col = cols;
  int master = -1, slave = -1;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, &ws) == 0);
  args.insert(args.begin(), program);
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setsid();
    ::ioctl(slave, TIOCSCTTY, 0);
    ::dup2(slave, 0);
    ::dup2(slave, 1);
    ::dup2(slave, 2);
    ::close(master);
    ::close(slave);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(slave);
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {
      char buf[4096];
      auto n = ::read(master, buf, sizeof(buf));
      if (n <= 0)
        break; // EIO: the terminal's last writer is gone
      out.append(buf, static_cast<std::size_t>(n));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      break;
    }
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

} // namespace

TEST_CASE("the progress bar in an 80-column terminal redraws in place: no "
          "line reaches the last column, none scrolls", "[process][cli]") {
  cluster c;
  for (auto& spec : seeded_specs(c, {"progress-node-1", "progress-node-2",
                                     "progress-node-3"}))
    c.start(spec);
  REQUIRE(wait_until([&] { return c[0].alive_count() == 3; }, millis(5000)));
  auto [out, code] = run_in_terminal(
    DICE_CLI_BIN,
    {"--node", url_of(c[0]), "submit", "sleep", "150", "--count", "40",
     "--ids-file", c.dir().file("ids"), "--wait", "--timeout", "60"},
    80, millis(60000));
  INFO(out);
  REQUIRE(code == 0);
  std::size_t lines = 0, redraws = 0;
  std::size_t start = 0;
  while (start < out.size()) {
    auto end = out.find('\n', start);
    if (end == std::string::npos)
      end = out.size();
    auto line = out.substr(start, end - start);
    ++lines;
    // Each redraw: \r, the text, then "erase to the end of the line".
    std::size_t from = 0;
    while (from <= line.size()) {
      auto to = line.find('\r', from);
      if (to == std::string::npos)
        to = line.size();
      auto shown = line.substr(from, to - from);
      if (auto k = shown.find("\033[K"); k != std::string::npos)
        shown.erase(k);
      if (shown.find(" ended (") != std::string::npos) {
        CAPTURE(shown);
        CHECK(shown.size() < 80);
        ++redraws;
      }
      from = to + 1;
    }
    start = end + 1;
  }
  // The submit line, the bar's line and the summary; no line per redraw.
  CHECK(lines <= 4);
  CHECK(redraws >= 5);
  CHECK_THAT(out, Contains("finished: 40 done"));
}

TEST_CASE("dice submit --wait goes on through another member when its node "
          "is killed, and dice wait follows the batch afterwards",
          "[process][cli]") {
  cluster c;
  for (auto& spec : seeded_specs(c, {"w-1", "w-2", "w-3"}))
    c.start(spec);
  REQUIRE(wait_until([&] { return c[0].alive_count() == 3; }, millis(5000)));
  auto ids = c.dir().file("batch.ids");
  process cli(DICE_CLI_BIN,
              {"--node", url_of(c[0]), "submit", "sleep", "400", "--count", "12",
               "--ids-file", ids, "--wait", "--timeout", "120"},
              c.dir().file("cli.log"));
  // The ids are written before the wait; then the CLI's node dies.
  REQUIRE(wait_until([&] { return lines_in(ids) == 12 && done_count(c[0]) >= 2; },
                     millis(30000)));
  c[0].proc().kill_now();
  auto code = cli.wait_exit(millis(120000));
  INFO("dice CLI output:\n" << cli.log() << "\nnode logs:\n" << c.logs());
  REQUIRE(code == 0);
  CHECK_THAT(cli.log(), Contains("following the tasks through"));
  CHECK_THAT(cli.log(), Contains("finished: 12 done"));
  // Later, from another node: the same batch, all done.
  process again(DICE_CLI_BIN,
                {"--node", url_of(c[1]), "wait", "--ids-file", ids},
                c.dir().file("wait.log"));
  CHECK(again.wait_exit(millis(30000)) == 0);
  CHECK_THAT(again.log(), Contains("finished: 12 done"));
}

TEST_CASE("a wait that times out exits 4 and says how to follow the tasks, "
          "a failed task exits 1 with its reason, no member answering exits 3",
          "[process][cli]") {
  cluster c;
  auto& n = c.start(c.make_spec("t-1"));
  auto url = url_of(n);
  {
    process cli(DICE_CLI_BIN,
                {"--node", url, "submit", "sleep", "5000", "--wait", "--timeout", "1"},
                c.dir().file("timeout.log"));
    auto code = cli.wait_exit(millis(20000));
    INFO(cli.log());
    CHECK(code == 4);
    CHECK_THAT(cli.log(), Contains("timed out") && Contains("dice wait"));
  }
  {
    process cli(DICE_CLI_BIN,
                {"--node", url, "submit", "sleep", "3000", "--time-limit",
                 "200ms", "--retries", "0", "--wait", "--timeout", "60"},
                c.dir().file("failed.log"));
    auto code = cli.wait_exit(millis(60000));
    INFO(cli.log());
    CHECK(code == 1);
    CHECK_THAT(cli.log(), Contains("1 failed") && Contains("time limit of 200 ms"));
  }
  {
    auto ids = c.dir().file("one.ids");
    process submit(DICE_CLI_BIN,
                   {"--node", url, "submit", "sleep", "60000", "--ids-file", ids},
                   c.dir().file("submit.log"));
    REQUIRE(submit.wait_exit(millis(20000)) == 0);
    CHECK(submit.log().empty()); // the ids went to the file
    REQUIRE(lines_in(ids) == 1);
    n.proc().kill_now();
    process cli(DICE_CLI_BIN, {"--node", url, "wait", "--ids-file", ids},
                c.dir().file("gone.log"));
    auto code = cli.wait_exit(millis(30000));
    INFO(cli.log());
    CHECK(code == 3);
  }
}

TEST_CASE("GET /tasks/ID?wait_ms=N answers once the task ends, or after N ms "
          "with the task as it is then, and a bad wait_ms is refused",
          "[process][http]") {
  cluster c;
  auto& n = c.start(c.make_spec("lp-1"));
  auto submit = dice_cli(c, n, {"submit", "sleep", "1500"}, "submit.log");
  REQUIRE(submit.code == 0);
  auto id = submit.output.substr(0, submit.output.find_first_of(" \n"));
  REQUIRE(!id.empty());
  auto path = "/tasks/" + id;
  // A short wait ends before the task does: the task as it is then.
  auto early = http_get(n.spec().http_port, path + "?wait_ms=100", millis(10000));
  INFO(early.body);
  REQUIRE(early.status == 200);
  CHECK(early.json()->value("state", "") != "done");
  // A long wait is answered by the task's end, well before the wait is over.
  auto from = std::chrono::steady_clock::now();
  auto ended = http_get(n.spec().http_port, path + "?wait_ms=30000", millis(40000));
  auto took = std::chrono::steady_clock::now() - from;
  INFO(ended.body);
  REQUIRE(ended.status == 200);
  CHECK(ended.json()->value("state", "") == "done");
  CHECK(took < std::chrono::seconds(20));
  // An ended task is answered at once, an unknown one is 404.
  CHECK(http_get(n.spec().http_port, path + "?wait_ms=30000", millis(10000)).status
        == 200);
  CHECK(http_get(n.spec().http_port, "/tasks/nobody-1?wait_ms=30000", millis(10000))
          .status
        == 404);
  for (auto bad : {"?wait_ms=-1", "?wait_ms=30001", "?wait_ms=soon",
                   "?wait_ms=", "?wait=5"}) {
    auto r = http_get(n.spec().http_port, path + bad);
    CAPTURE(bad, r.body);
    CHECK(r.status == 400);
    CHECK_THAT(r.body, Contains("wait_ms"));
  }
}

TEST_CASE("POST /tasks?wait_ms=N answers once the tasks it submitted ended, "
          "each with its result, or after N ms with them as they are then",
          "[process][http]") {
  cluster c;
  auto& n = c.start(c.make_spec("lp-2"));
  auto port = n.spec().http_port;
  // Two tasks of 300 ms: answered with both done, well before the wait.
  auto from = std::chrono::steady_clock::now();
  auto r = http_post(port, "/tasks?wait_ms=30000",
                     {{"kind", "sleep"}, {"payload", "300"}, {"count", 2}},
                     millis(40000));
  auto took = std::chrono::steady_clock::now() - from;
  INFO(r.body);
  REQUIRE(r.status == 201);
  auto j = *r.json();
  REQUIRE(j["tasks"].size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(j["tasks"][i]["id"] == j["ids"][i]);
    CHECK(j["tasks"][i]["state"] == "done");
  }
  CHECK(took < std::chrono::seconds(20));
  // A wait shorter than the task: the task as it is then, not ended.
  auto early = http_post(port, "/tasks?wait_ms=100",
                         {{"kind", "sleep"}, {"payload", "1500"}});
  INFO(early.body);
  REQUIRE(early.status == 201);
  CHECK(early.json()->at("tasks").at(0).value("state", "") != "done");
  // A key's second submit names the first one's task, and waits for it too.
  nlohmann::json keyed{{"kind", "echo"}, {"payload", "k"}, {"key", "wait-key"}};
  auto first = http_post(port, "/tasks?wait_ms=30000", keyed, millis(40000));
  REQUIRE(first.status == 201);
  auto again = http_post(port, "/tasks?wait_ms=30000", keyed, millis(40000));
  INFO(again.body);
  REQUIRE(again.status == 200);
  CHECK(again.json()->at("tasks").at(0).at("id") == first.json()->at("ids").at(0));
  CHECK(again.json()->at("tasks").at(0).value("state", "") == "done");
  // Without wait_ms the answer lists no tasks; a bad wait_ms, or a wait on
  // more tasks than it may list, is refused and nothing is enqueued.
  auto plain = http_post(port, "/tasks", {{"kind", "echo"}, {"payload", "x"}});
  REQUIRE(plain.status == 201);
  CHECK(!plain.json()->contains("tasks"));
  auto before = n.stats();
  REQUIRE(before);
  for (auto bad : {"?wait_ms=-1", "?wait_ms=30001", "?wait_ms=soon", "?wait=5"}) {
    auto b = http_post(port, std::string("/tasks") + bad, {{"kind", "echo"}, {"payload", "x"}});
    CAPTURE(bad, b.body);
    CHECK(b.status == 400);
    CHECK_THAT(b.body, Contains("wait_ms"));
  }
  auto many = http_post(port, "/tasks?wait_ms=10",
                        {{"kind", "echo"}, {"payload", "x"}, {"count", 1001}});
  CHECK(many.status == 400);
  CHECK_THAT(many.body, Contains("at most 1000"));
  auto after = n.stats();
  REQUIRE(after);
  CHECK((*after)["tasks"]["total"] == (*before)["tasks"]["total"]);
}
