// The ctest runner of test_runner: a CMake project is configured and
// built in the task's own workspace (a build per module: no build tree
// travels between nodes, so a module needs nothing but the sources), then
// `ctest` runs the module's one test with --output-junit, read as pytest's
// report is. Listing (--split test) builds once more, on the node that
// accepts the evaluation, and asks `ctest --show-only=json-v1`.
#include "tester/test_runner.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>

namespace fs = std::filesystem;

namespace dice {

namespace {

constexpr const char* build_dir = ".dice-build";
constexpr const char* ctest_junit = ".dice-ctest-junit.xml";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

bool test_runner::build_cmake(const std::string& dir, millis deadline_ms,
                              const cancel_token& cancel, std::string& error,
                              std::string& output) {
  auto started = std::chrono::steady_clock::now();
  auto left = [&] {
    auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - started).count();
    return std::max<millis>(1, deadline_ms - spent);
  };
  if (!fs::exists(dir + "/CMakeLists.txt")) {
    error = "ctest: the project has no CMakeLists.txt at its top";
    return false;
  }
  auto build = dir + "/" + build_dir;
  for (auto argv : {std::vector<std::string>{"cmake", "-S", dir, "-B", build},
                    std::vector<std::string>{"cmake", "--build", build}}) {
    auto req = request_in(dir, left(), argv);
    auto out = run_sandboxed(req, cancel);
    if (!out.exited_ok()) {
      error = "ctest: " + argv[0] + " " + argv[1] + " " + argv[2] + ": "
              + out.describe(req.timeout_ms);
      output = tail_of(out.output, cfg_.output_bytes * 2);
      return false;
    }
  }
  return true;
}

std::vector<test_case_result>
test_runner::run_ctest(const std::string& name, const std::string& dir, millis timeout_ms,
                       const cancel_token& cancel, module_result& into) {
  auto started = std::chrono::steady_clock::now();
  std::string error, output;
  if (!build_cmake(dir, timeout_ms, cancel, error, output)) {
    into.error = error;
    into.output = output;
    return {};
  }
  auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - started).count();
  auto left = std::max<millis>(1, timeout_ms - spent);
  auto junit = dir + "/" + ctest_junit;
  std::error_code ec;
  fs::remove(junit, ec);
  auto req = request_in(dir, left,
                        {"ctest", "--test-dir", dir + "/" + build_dir, "-R",
                         ctest_exact_regex(name), "--no-tests=error", "--output-junit",
                         junit, "--timeout", std::to_string(std::max<millis>(1, left / 1000))});
  auto out = run_sandboxed(req, cancel);
  std::vector<test_case_result> cases;
  bool has_report = out.started && !out.timed_out && !out.canceled && fs::exists(junit, ec);
  if (has_report)
    cases = parse_junit(slurp(junit), cfg_.output_bytes, error);
  // ctest exits 8 when a test failed, with a report; no report, or one
  // without the test, is ctest's own failure.
  if (!has_report || !error.empty() || cases.empty()) {
    into.error = "ctest: " + out.describe(left) + (has_report ? "" : ", no report")
                 + (error.empty() ? "" : "; " + error);
    into.output = tail_of(out.output, cfg_.output_bytes * 2);
    return {};
  }
  // A crash leaves <failure message=""/> and no output: ctest's own line
  // for the test ("Subprocess aborted", "SEGFAULT") says what happened.
  for (auto& tc : cases)
    if (tc.outcome != "passed" && tc.outcome != "skipped" && tc.output.empty())
      tc.output = tail_of(out.output, cfg_.output_bytes);
  return cases;
}

std::optional<std::vector<std::string>>
test_runner::list_ctest(const std::string& dir, millis timeout_ms, std::string& error) {
  cancel_token never;
  std::string output;
  if (!build_cmake(dir, timeout_ms, never, error, output)) {
    error += ": " + tail_of(output, 1024);
    return std::nullopt;
  }
  auto req = request_in(dir, timeout_ms,
                        {"ctest", "--test-dir", dir + "/" + build_dir,
                         "--show-only=json-v1"});
  req.max_output_bytes = 16 * 1024 * 1024; // every test
  auto out = run_sandboxed(req, never);
  if (!out.exited_ok()) {
    error = "ctest --show-only: " + out.describe(timeout_ms) + ": " + tail_of(out.output, 1024);
    return std::nullopt;
  }
  auto names = parse_ctest_names(out.output, error);
  if (!error.empty())
    return std::nullopt;
  return names;
}

} // namespace dice
