#include "tester/test_runner.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/defaults.hpp"
#include "tester/project_archive.hpp"
#include "tester/sandbox.hpp"
#include "tester/work_dir.hpp"

namespace fs = std::filesystem;

namespace dice {

namespace {

/// Runner output read per module run, beyond which it is dropped (only
/// its tail is reported, when the runner crashed or hung).
constexpr std::size_t runner_output_bytes = 256 * 1024;

constexpr const char* junit_name = ".dice-junit.xml";

bool as_root() {
  return ::geteuid() == 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

// A fresh directory, removed when it goes out of scope.
struct test_runner::workspace {
  std::string path;
  tester_counters* counters = nullptr;
  workspace(std::string p, tester_counters* c) : path(std::move(p)), counters(c) {}
  workspace(workspace&& o) noexcept : path(std::move(o.path)), counters(o.counters) {
    o.path.clear();
  }
  workspace& operator=(workspace&&) = delete;
  ~workspace() {
    if (!path.empty() && !remove_tree(path))
      ++counters->workspaces_left;
  }
};

test_runner::test_runner(tester_config cfg, std::string node_id,
                         std::shared_ptr<blob_store> store, blob_fetcher fetch,
                         blob_sources peers)
  : cfg_(std::move(cfg)), node_id_(std::move(node_id)), store_(std::move(store)),
    fetch_(std::move(fetch)), peers_(std::move(peers)) {
  if (!cfg_.work_dir.empty())
    counters_.workspaces_swept = sweep_stale_workspaces(cfg_.work_dir);
}

blob_pin test_runner::ensure_blob(const std::string& sha,
                                  const std::vector<std::string>& sources,
                                  std::string& error) {
  if (auto pin = store_->pin(sha); !pin.path().empty())
    return pin;
  auto candidates = sources;
  if (peers_)
    for (auto& p : peers_())
      if (std::find(candidates.begin(), candidates.end(), p) == candidates.end())
        candidates.push_back(p);
  error = "no node to fetch it from";
  for (auto& source : candidates) {
    auto tmp = store_->temp_path();
    std::string why;
    if (fetch_ && fetch_(source, sha, tmp, why) && store_->adopt(tmp, sha, why)) {
      ++counters_.fetched;
      if (auto pin = store_->pin(sha); !pin.path().empty())
        return pin;
      error = source + ": evicted as soon as fetched (blob cache too small?)";
      continue;
    }
    std::error_code ec;
    fs::remove(tmp, ec);
    ++counters_.fetch_errors;
    error = source + ": " + why;
  }
  error = "project blob " + sha.substr(0, 12) + " not found on any of "
          + std::to_string(candidates.size()) + " node(s); last: " + error;
  return {};
}

std::optional<test_runner::workspace>
test_runner::unpack(const std::string& blob_path, std::string& error) {
  std::error_code ec;
  fs::create_directories(cfg_.work_dir, ec);
  // Others may pass through to their own workspace, not list the rest.
  ::chmod(cfg_.work_dir.c_str(), 0711);
  auto templ = cfg_.work_dir + "/ws-" + std::to_string(++next_ws_) + "-XXXXXX";
  if (!::mkdtemp(templ.data())) {
    error = "cannot make a workspace in " + cfg_.work_dir;
    return std::nullopt;
  }
  workspace ws{templ, &counters_};
  unpack_limits lim{cfg_.max_unpacked_bytes, cfg_.max_entries};
  auto files = unpack_archive(blob_path, ws.path, lim, error);
  if (files < 0)
    return std::nullopt;
  if (files == 0) {
    error = "the project archive holds no files";
    return std::nullopt;
  }
  if (as_root())
    give_tree(ws.path, 65534, 65534); // nobody: the runner's user
  return ws;
}

sandbox_request test_runner::request_in(const std::string& dir, millis timeout_ms,
                                        std::vector<std::string> argv) const {
  sandbox_request req;
  req.argv = std::move(argv);
  req.cwd = dir;
  // Only what a test needs: nothing of the node's own environment
  // (tokens, key file names) reaches the project's code.
  req.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir,
             "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "DICE_NODE_ID=" + node_id_};
  req.timeout_ms = timeout_ms;
  req.max_output_bytes = runner_output_bytes;
  req.drop_privileges = as_root();
  return req;
}

std::vector<test_case_result>
test_runner::run_pytest(const std::vector<std::string>& targets, const std::string& dir,
                        millis timeout_ms, const cancel_token& cancel,
                        module_result& into) {
  auto junit = dir + "/" + junit_name;
  std::error_code ec;
  fs::remove(junit, ec);
  auto req = request_in(dir, timeout_ms,
                        {cfg_.python, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                         "--junitxml=" + junit, "-o", "junit_family=xunit1"});
  req.argv.insert(req.argv.end(), targets.begin(), targets.end());
  auto out = run_sandboxed(req, cancel);
  std::string error;
  std::vector<test_case_result> cases;
  bool has_report = out.started && !out.timed_out && !out.canceled
                    && fs::exists(junit, ec);
  if (has_report)
    cases = parse_junit(read_file(junit), cfg_.output_bytes, error);
  // pytest's exit 0 (all passed), 1 (some failed) and 5 (none collected)
  // come with a report; anything else, or no report, is the runner's own
  // failure (pytest itself broke, or the interpreter died).
  bool reported = has_report && WIFEXITED(out.status)
                  && (WEXITSTATUS(out.status) <= 1 || WEXITSTATUS(out.status) == 5)
                  && error.empty();
  if (!reported) {
    into.error = "pytest: " + out.describe(timeout_ms)
                 + (has_report ? "" : ", no report") + (error.empty() ? "" : "; " + error);
    into.output = tail_of(out.output, cfg_.output_bytes * 2);
  }
  return cases;
}

module_result test_runner::run_module(const module_task& t, const std::string& dir,
                                      const cancel_token& cancel) {
  auto r = run_process(t, dir, cancel);
  if (t.with.empty() || r.error.empty() || cancel.canceled())
    return r;
  // The process that ran the group did not report (a crash, a hang, pytest
  // itself broken): each module again alone, so the others' results stand
  // and the error names the module it belongs to.
  module_result each;
  each.node = node_id_;
  for (const auto& m : t.modules()) {
    module_task one = t;
    one.module = m;
    one.with.clear();
    auto start = std::chrono::steady_clock::now();
    auto part = run_process(one, dir, cancel);
    auto& share = each.shares[m];
    share.ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - start).count();
    share.counts = part.counts;
    share.error = part.error;
    each.counts.add(part.counts);
    for (auto& tc : part.tests)
      each.tests.push_back(std::move(tc));
    if (!part.error.empty()) {
      each.error += (each.error.empty() ? "" : "; ") + m + ": " + part.error;
      each.output = std::move(part.output);
    }
    if (cancel.canceled())
      break;
  }
  return each;
}

module_result test_runner::run_process(const module_task& t, const std::string& dir,
                                       const cancel_token& cancel) {
  module_result r;
  r.node = node_id_;
  auto timeout = std::min<millis>(cfg_.max_timeout_ms,
                                  static_cast<millis>(t.timeout_s) * 1000);
  if (t.runner == "cmd") {
    auto req = request_in(dir, timeout, {});
    std::istringstream words(t.module);
    for (std::string w; words >> w;)
      req.argv.push_back(w);
    auto out = run_sandboxed(req, cancel);
    test_case_result tc;
    tc.id = t.module;
    tc.outcome = out.exited_ok() ? "passed" : "failed";
    if (!out.exited_ok())
      tc.output = tail_of(out.describe(timeout) + "\n" + out.output, cfg_.output_bytes);
    r.tests.push_back(std::move(tc));
  } else {
    bool ctest = t.runner == "ctest";
    r.tests = ctest ? run_ctest(t.module, dir, timeout, cancel, r)
                    : run_pytest(t.modules(), dir, timeout, cancel, r);
    for (std::uint32_t round = 0; round < t.reruns && r.error.empty(); ++round) {
      std::vector<std::string> again;
      for (auto& tc : r.tests)
        if ((tc.outcome == "failed" || tc.outcome == "error")
            && (ctest || tc.id.find("::") != std::string::npos))
          again.push_back(tc.id);
      if (again.empty() || cancel.canceled())
        break;
      module_result rerun;
      // ctest: the module is one test, run again in the same build.
      auto second = ctest ? run_ctest(t.module, dir, timeout, cancel, rerun)
                          : run_pytest(again, dir, timeout, cancel, rerun);
      for (auto& s : second)
        if (s.outcome == "passed")
          for (auto& tc : r.tests)
            if (tc.id == s.id && tc.outcome != "passed") {
              tc.outcome = "passed"; // flaky: the first failure's output stays
              tc.flaky = true;
            }
    }
  }
  for (auto& tc : r.tests)
    r.counts.add(tc.outcome, tc.flaky);
  if (!r.error.empty() && r.counts.tests() == 0)
    r.counts.errors = 1; // the module itself is one error
  return r;
}

task_outcome test_runner::run(const std::string& payload, const cancel_token& cancel) {
  std::string error;
  auto task = decode_module_task(payload, error);
  if (!task)
    return task_outcome::failure(error);
  auto start = std::chrono::steady_clock::now();
  module_result r;
  {
    auto blob = ensure_blob(task->blob, task->sources, error);
    if (blob.path().empty())
      return task_outcome::failure("test: " + error);
    // The project unpacked when the evaluation was accepted: failing here
    // is this node's trouble (a full disk, say), so the task fails and
    // another node retries it, instead of a module error in the report.
    auto ws = unpack(blob.path(), error);
    if (!ws)
      return task_outcome::failure("test: cannot unpack the project: " + error);
    blob = blob_pin{}; // unpacked: the blob may go
    r = run_module(*task, ws->path, cancel);
  } // the workspace is gone here
  if (cancel.canceled())
    return task_outcome::failure("canceled");
  r.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - start).count();
  // Before the result is cut to size: every test counts.
  if (!task->with.empty() && r.shares.empty())
    r.shares = group_shares(task->modules(), r);
  counters_.modules += task->with.size() + 1;
  counters_.tests += r.counts.tests();
  counters_.passed += r.counts.passed;
  counters_.failed += r.counts.failed + r.counts.errors;
  return task_outcome::success(encode_module_result(std::move(r),
                                                    defaults::max_result_bytes - 1024));
}

std::optional<std::vector<std::string>>
test_runner::find_modules(const std::string& blob_path, const std::string& runner,
                          const std::string& split, millis timeout_ms, std::string& error,
                          std::map<std::string, std::uint64_t>* priors) {
  bool ctest = runner == "ctest";
  if ((split == "test" || ctest) && !cfg_.enabled) {
    error = ctest ? "--runner ctest builds the project to list its tests, which only a "
                    "node started with --tester does"
                  : "--split test runs pytest --collect-only, which only a node "
                    "started with --tester does";
    return std::nullopt;
  }
  auto ws = unpack(blob_path, error);
  if (!ws)
    return std::nullopt;
  std::vector<std::string> found;
  if (ctest) {
    auto names = list_ctest(ws->path, timeout_ms, error);
    if (!names)
      return std::nullopt;
    found = std::move(*names);
  } else if (split == "file") {
    found = discover_pytest_files(ws->path);
  } else {
    auto req = request_in(ws->path, timeout_ms,
                          {cfg_.python, "-m", "pytest", "-p", "no:cacheprovider",
                           "--collect-only", "-q"});
    req.max_output_bytes = 16 * 1024 * 1024; // every test id
    cancel_token never;
    auto out = run_sandboxed(req, never);
    // Exit 5: nothing collected, reported below like an empty search.
    bool none = out.started && WIFEXITED(out.status) && WEXITSTATUS(out.status) == 5;
    if (!out.exited_ok() && !none) {
      error = "pytest --collect-only: " + out.describe(timeout_ms) + ": "
              + tail_of(out.output, 1024);
      return std::nullopt;
    }
    found = parse_collected_ids(out.output);
  }
  if (priors && !ctest)
    for (auto& m : found) {
      std::error_code size_ec;
      auto bytes = fs::file_size(ws->path + "/" + m.substr(0, m.find("::")), size_ec);
      if (!size_ec)
        (*priors)[m] = bytes;
    }
  if (found.empty()) {
    error = ctest             ? "ctest lists no tests (add_test in CMakeLists.txt)"
            : split == "file" ? "no test modules found (test_*.py or *_test.py files)"
                              : "pytest collected no tests";
    return std::nullopt;
  }
  return found;
}

} // namespace dice
