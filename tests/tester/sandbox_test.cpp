#include <catch2/catch.hpp>

#include <filesystem>

#include "tester/sandbox.hpp"
#include "tester_temp.hpp"

using namespace dice;

namespace {

sandbox_request sh(const std::string& script, const std::string& cwd,
                   millis timeout_ms = 5000, std::size_t cap = 1024) {
  sandbox_request r;
  r.argv = {"sh", "-c", script};
  r.cwd = cwd;
  r.env = {"PATH=/usr/bin:/bin", "HOME=" + cwd, "ONLY=this"};
  r.timeout_ms = timeout_ms;
  r.max_output_bytes = cap;
  return r;
}

} // namespace

TEST_CASE("a sandboxed run gets only its own directory and environment",
          "[tester][sandbox]") {
  test::scratch_dir d;
  cancel_token never;
  auto out = run_sandboxed(sh("pwd; env | sort; ls /proc/self/fd | wc -l", d.path), never);
  CHECK(out.exited_ok());
  CHECK_THAT(out.output, Catch::Matchers::StartsWith(d.path + "\n"));
  CHECK_THAT(out.output, Catch::Matchers::Contains("ONLY=this"));
  CHECK_THAT(out.output, !Catch::Matchers::Contains("DICE_"));
}

TEST_CASE("a sandboxed run is stopped at its time limit with all it started",
          "[tester][sandbox]") {
  test::scratch_dir d;
  cancel_token never;
  // The child's own child would keep the pipe open: the group is killed.
  auto out = run_sandboxed(sh("sleep 30 & echo started; sleep 30", d.path, 300), never);
  CHECK(out.timed_out);
  CHECK_FALSE(out.exited_ok());
  CHECK_THAT(out.describe(300), Catch::Matchers::Contains("timed out after 300 ms"));
  CHECK_THAT(out.output, Catch::Matchers::Contains("started"));
}

TEST_CASE("a sandboxed run's output is capped and its status told", "[tester][sandbox]") {
  test::scratch_dir d;
  cancel_token never;
  auto out = run_sandboxed(sh("head -c 5000 /dev/zero; exit 3", d.path, 5000, 100), never);
  CHECK(out.output.size() == 100);
  CHECK(out.dropped == 4900);
  CHECK(out.describe(0) == "exit status 3");
  auto crash = run_sandboxed(sh("kill -ABRT $$", d.path), never);
  CHECK_THAT(crash.describe(0), Catch::Matchers::Contains("killed by signal"));
  auto missing = run_sandboxed([&] {
    auto r = sh("", d.path);
    r.argv = {"no-such-program-here"};
    return r;
  }(), never);
  CHECK_FALSE(missing.started);
  CHECK_THAT(missing.error, Catch::Matchers::Contains("cannot find"));
}

TEST_CASE("remove_tree removes read-only directories too", "[tester][sandbox]") {
  test::scratch_dir d;
  d.write("ws/a/b/file", "x");
  std::filesystem::permissions(d.path + "/ws/a/b", std::filesystem::perms::owner_read);
  CHECK(remove_tree(d.path + "/ws"));
  CHECK_FALSE(std::filesystem::exists(d.path + "/ws"));
}
