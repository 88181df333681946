#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <thread>

#include "executor/shell_kind.hpp"

using namespace dice;

namespace {

shell_config allow(std::vector<std::string> cmds, millis timeout_ms = 5000,
                   std::size_t cap = 1024) {
  shell_config c;
  c.allow = std::move(cmds);
  c.timeout_ms = timeout_ms;
  c.max_output_bytes = cap;
  return c;
}

} // namespace

TEST_CASE("shell payloads split into argv without a shell", "[shell]") {
  std::string err;
  CHECK(shell_argv("/bin/echo a  b", err)
        == std::vector<std::string>{"/bin/echo", "a", "b"});
  CHECK(shell_argv(R"(["/bin/echo", "a b", "$HOME"])", err)
        == std::vector<std::string>{"/bin/echo", "a b", "$HOME"});
  CHECK(shell_argv("   ", err).empty());
  CHECK(err == "shell: payload names no program");
  CHECK(shell_argv(R"(["/bin/echo", 3])", err).empty());
  CHECK(err == "shell: every element of the JSON array must be a string");
  CHECK(shell_argv("[not json", err).empty());
}

TEST_CASE("an allowed program runs and its output is the result", "[shell]") {
  cancel_token none;
  auto out = run_shell(allow({"/bin/echo"}), R"(["/bin/echo", "a b", "$HOME"])", none);
  REQUIRE(out.ok);
  CHECK(out.result_or_reason == "a b $HOME\n"); // no shell expanded $HOME
}

TEST_CASE("a program not on the allow-list is refused", "[shell]") {
  cancel_token none;
  auto out = run_shell(allow({"/bin/echo"}), "/bin/sh -c true", none);
  CHECK_FALSE(out.ok);
  CHECK(out.result_or_reason
        == "shell: '/bin/sh' is not in the node's --shell-allow list");
  // The allow-list matches argv[0] exactly: another path to echo is refused.
  CHECK_FALSE(run_shell(allow({"/bin/echo"}), "/usr/bin/echo hi", none).ok);
}

TEST_CASE("a failing program is a failure with its exit status", "[shell]") {
  cancel_token none;
  auto out = run_shell(allow({"/bin/false"}), "/bin/false", none);
  CHECK_FALSE(out.ok);
  CHECK(out.result_or_reason == "shell: /bin/false: exit status 1");
  auto missing = run_shell(allow({"/nonexistent/prog"}), "/nonexistent/prog", none);
  CHECK_FALSE(missing.ok);
  CHECK(missing.result_or_reason.rfind("shell: cannot run '/nonexistent/prog'", 0) == 0);
}

TEST_CASE("a program over its timeout is killed with its process group",
          "[shell]") {
  cancel_token none;
  // sh starts a sleep child; killing only sh would leave sleep holding
  // the output pipe, and run_shell would not return before it ends.
  auto out = run_shell(allow({"/bin/sh"}, 200),
                       R"(["/bin/sh", "-c", "/bin/sleep 30; echo late"])", none);
  CHECK_FALSE(out.ok);
  CHECK(out.result_or_reason == "shell: timed out after 200 ms; process group killed");
}

TEST_CASE("captured output is capped", "[shell]") {
  cancel_token none;
  std::string big(3000, 'x');
  auto out = run_shell(allow({"/bin/echo"}, 5000, 100), "/bin/echo " + big, none);
  REQUIRE(out.ok);
  CHECK(out.result_or_reason.substr(0, 100) == std::string(100, 'x'));
  CHECK(out.result_or_reason.substr(100)
        == "\n[output truncated: 2901 more bytes dropped]");
}

TEST_CASE("a canceled shell task stops its program", "[shell]") {
  cancel_token token;
  token.cancel();
  auto out = run_shell(allow({"/bin/sleep"}), "/bin/sleep 30", token);
  CHECK_FALSE(out.ok);
  CHECK(out.result_or_reason == "canceled");
}

TEST_CASE("shell config problems name the option", "[shell]") {
  CHECK(allow({"/bin/echo"}).problem().empty());
  CHECK(allow({""}).problem().rfind("--shell-allow", 0) == 0);
  CHECK(allow({"/bin/echo"}, 0).problem() == "--shell-timeout-ms must be positive");
  CHECK(allow({"/bin/echo"}, 10, 0).problem() == "--shell-max-output-bytes must be from 1 to 32768");
}

TEST_CASE("a shell task canceled while its program runs stops at once",
          "[shell]") {
  cancel_token token;
  auto done = std::async(std::launch::async, [&token] {
    return run_shell(allow({"/bin/sleep"}), "/bin/sleep 3600", token);
  });
  // Give the program time to start, so the cancel finds it running (were
  // it still starting, the cancel would be seen first: same outcome).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  token.cancel();
  // Far below the hour asked for: the wait ends with the cancel.
  REQUIRE(done.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  auto out = done.get();
  CHECK_FALSE(out.ok);
  CHECK(out.result_or_reason == "canceled");
}

TEST_CASE("a program that closes its output and lives on is waited for",
          "[shell]") {
  cancel_token none;
  // The output closes at once; the exit (status 3) comes 200 ms later.
  auto out = run_shell(allow({"/bin/sh"}),
                       R"(["/bin/sh", "-c", "exec >&- 2>&-; /bin/sleep 0.2; exit 3"])",
                       none);
  CHECK_FALSE(out.ok);
  CHECK(out.result_or_reason == "shell: /bin/sh: exit status 3");
}
