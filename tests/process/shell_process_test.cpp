// The shell kind and the executor's tunables as a user meets them: enabled
// by an allow-list in the INI file, tasks submitted with the dice CLI end
// DONE with their output or FAILED with the reason after bounded attempts.
#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;

TEST_CASE("shell tasks run allowed programs only, with bounded retries",
          "[process][shell]") {
  cluster c;
  auto ini = c.dir().write("shell.ini", "shell-allow = /bin/echo, /bin/false\n"
                                        "max-attempts = 2\n");
  auto spec = c.make_spec("sh-1");
  spec.extra_args = {"--config", ini, "--slots", "1"};
  auto& n = c.start(spec);
  auto url = "http://" + loopback(n.spec().http_port);

  auto run = [&](const std::string& payload, const std::string& log) {
    process cli(DICE_CLI_BIN,
                {"--node", url, "--json", "submit", "shell", payload, "--wait",
                 "--timeout", "30"},
                c.dir().file(log));
    auto code = cli.wait_exit(millis(40000));
    INFO("dice CLI output:\n" << cli.log() << "\nnode log:\n" << c.logs());
    REQUIRE(code);
    auto summary = last_json_line(cli.log());
    REQUIRE_FALSE(summary.is_discarded());
    auto ids = summary["ids"].get<std::vector<std::string>>();
    REQUIRE(ids.size() == 1);
    auto task = get_json(n.spec().http_port, "/tasks/" + ids[0]);
    REQUIRE(task);
    return std::make_pair(*code, *task);
  };

  SECTION("an allowed program's output is the result") {
    auto [code, task] = run(R"(["/bin/echo", "hello  world"])", "echo.log");
    CHECK(code == 0);
    CHECK(task["state"] == "done");
    CHECK(task["result"] == "hello  world\n");
    CHECK(task["attempts"] == 1);
    CHECK(task["started_at_ms"].get<std::int64_t>()
          >= task["ready_at_ms"].get<std::int64_t>());
    CHECK(task["finished_at_ms"].get<std::int64_t>()
          >= task["started_at_ms"].get<std::int64_t>());
  }
  SECTION("a result that is not UTF-8 is readable, its bad bytes replaced") {
    auto [code, task] = run(R"(["/bin/echo", "-e", "a\\377b"])", "bytes.log");
    CHECK(code == 0);
    CHECK(task["state"] == "done");
    CHECK(task["result"] == "a\xEF\xBF\xBD" "b\n"); // U+FFFD
  }
  SECTION("a failing program is retried up to --max-attempts, then FAILED") {
    auto [code, task] = run("/bin/false", "false.log");
    CHECK(code != 0);
    CHECK(task["state"] == "failed");
    CHECK(task["attempts"] == 2);
    CHECK_THAT(task["reason"].get<std::string>(), Contains("exit status 1"));
  }
  SECTION("a program off the allow-list is refused at submit with the "
          "reason (no node of the cluster would claim it)") {
    process cli(DICE_CLI_BIN, {"--node", url, "submit", "shell", "/bin/sh -c true"},
                c.dir().file("sh.log"));
    auto code = cli.wait_exit(millis(10000));
    REQUIRE(code);
    CHECK(*code != 0);
    CHECK_THAT(cli.log(),
               Contains("no live member allows '/bin/sh'"));
  }
}

TEST_CASE("without --shell-allow a node refuses shell tasks",
          "[process][shell]") {
  cluster c;
  auto& n = c.start(c.make_spec("plain-1"));
  auto url = "http://" + loopback(n.spec().http_port);
  process cli(DICE_CLI_BIN, {"--node", url, "submit", "shell", "/bin/echo hi"},
              c.dir().file("cli.log"));
  auto code = cli.wait_exit(millis(10000));
  REQUIRE(code);
  CHECK(*code != 0);
  CHECK_THAT(cli.log(), Contains("unknown kind 'shell'"));
}

TEST_CASE("nodes that cannot run shell tasks never claim them: every one "
          "runs on the node that allows it, none fails",
          "[process][shell]") {
  cluster c;
  auto runner = c.make_spec("cap-runner");
  runner.extra_args = {"--shell-allow", "/bin/echo"};
  auto& n = c.start(runner);
  for (auto id : {"cap-2", "cap-3"}) {
    auto spec = c.make_spec(id);
    spec.peers = {n.spec().udp_addr()};
    c.start(spec);
  }
  REQUIRE(wait_until([&] { return n.alive_count() == 3; }, millis(5000)));
  auto url = "http://" + loopback(n.spec().http_port);
  process cli(DICE_CLI_BIN,
              {"--node", url, "--json", "submit", "shell", "/bin/echo hi",
               "--count", "12", "--wait", "--timeout", "60"},
              c.dir().file("cli.log"));
  auto code = cli.wait_exit(millis(70000));
  INFO("cli:\n" << cli.log() << "\nlogs:\n" << c.logs());
  REQUIRE(code);
  CHECK(*code == 0);
  auto s = last_json_line(cli.log());
  REQUIRE_FALSE(s.is_discarded());
  CHECK(s["done"] == 12);
  CHECK(s["failed"] == 0);
  CHECK(s["per_node"] == nlohmann::json{{"cap-runner", 12}});
}

namespace {

// `dice --json submit shell PAYLOAD` against `n`: exit status and output.
std::pair<int, std::string> submit_shell(cluster& c, node_process& n,
                                         const std::string& payload,
                                         const std::string& log) {
  process cli(DICE_CLI_BIN,
              {"--node", "http://" + loopback(n.spec().http_port), "--json",
               "submit", "shell", payload},
              c.dir().file(log));
  auto code = cli.wait_exit(millis(10000));
  REQUIRE(code);
  return {*code, cli.log()};
}

} // namespace

TEST_CASE("a node without the shell kind takes shell tasks while a live "
          "member advertises the program, refuses them with the reason once "
          "none does, and lets them wait with --wait-for-runner",
          "[process][shell][capabilities]") {
  cluster c;
  auto runner = c.make_spec("runs-shell");
  runner.extra_args = {"--shell-allow", "/bin/echo"};
  auto& r = c.start(runner);
  auto plain = c.make_spec("plain");
  plain.peers = {r.spec().udp_addr()};
  auto& p = c.start(plain);
  auto waiting = c.make_spec("waits");
  waiting.peers = {r.spec().udp_addr()};
  waiting.extra_args = {"--wait-for-runner"};
  auto& w = c.start(waiting);
  REQUIRE(wait_until([&] { return p.alive_count() == 3 && w.alive_count() == 3; },
                     millis(5000)));

  auto [code, out] = submit_shell(c, p, "/bin/echo hi", "ok.log");
  INFO("cli:\n" << out << "\nlogs:\n" << c.logs());
  CHECK(code == 0);
  auto ids = last_json_line(out)["ids"];
  REQUIRE(ids.size() == 1);
  REQUIRE(wait_until([&] {
    auto t = get_json(p.spec().http_port, "/tasks/" + ids[0].get<std::string>());
    return t && (*t)["state"] == "done";
  }, millis(20000)));

  // A member's first heartbeats may leave before its queue says what it
  // runs, and till then it might run anything: nothing is refused until
  // p has heard what every member runs (docs/tasks.md).
  std::pair<int, std::string> date;
  wait_until([&] {
    date = submit_shell(c, p, "/bin/date", "date.log");
    return date.first != 0;
  }, millis(5000));
  auto [wrong, why] = date;
  CHECK(wrong != 0);
  CHECK_THAT(why, Contains("no live member allows '/bin/date'"));

  r.proc().kill_now();
  REQUIRE(wait_until([&] { return p.state_of("runs-shell") == "dead"; },
                     millis(15000)));
  auto [refused, reason] = submit_shell(c, p, "/bin/echo again", "refused.log");
  CHECK(refused != 0);
  CHECK_THAT(reason, Contains("unknown kind 'shell': no live member runs it"));

  // The waiting node takes it; it stays ready until a runner comes back.
  REQUIRE(wait_until([&] { return w.state_of("runs-shell") == "dead"; },
                     millis(15000)));
  auto [kept, kept_out] = submit_shell(c, w, "/bin/echo later", "kept.log");
  CHECK(kept == 0);
  auto kept_ids = last_json_line(kept_out)["ids"];
  REQUIRE(kept_ids.size() == 1);
  auto kept_id = kept_ids[0].get<std::string>();
  auto state = [&] {
    auto t = get_json(w.spec().http_port, "/tasks/" + kept_id);
    return t ? (*t)["state"].get<std::string>() : std::string{};
  };
  CHECK(state() == "ready");
  runner.peers = {p.spec().udp_addr()};
  c.start(runner); // restarted on its data dir
  CHECK(wait_until([&] { return state() == "done"; }, millis(20000)));
}
