#pragma once
// The `test` task kind: runs one module of an evaluation. It finds the
// project blob (its own store, else fetched from a node that holds it and
// checked against its hash), unpacks it into a fresh workspace, runs the
// runner there in a sandbox (see sandbox.hpp) with the module's time
// limit, reads the runner's JUnit report into per-test results, reruns
// failed tests if asked (a test that then passes is flaky), and removes
// the workspace. A module whose tests fail is still a task DONE: its
// result says what failed; only a missing blob or a workspace that cannot
// be unpacked fails the task (another node may have better luck). Runners:
// pytest, cmd (a command line) and ctest (test_runner_ctest.cpp).
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "executor/execution.hpp"
#include "tester/blob_store.hpp"
#include "tester/sandbox.hpp"
#include "tester/test_module.hpp"
#include "tester/tester_config.hpp"

namespace dice {

/// Copies blob `sha` from the node whose HTTP API is at `source`
/// (http://HOST:PORT or https://HOST:PORT) to `dest_path`; false with
/// `error` set.
using blob_fetcher = std::function<bool(const std::string& source, const std::string& sha,
                                        const std::string& dest_path, std::string& error)>;
/// API base URLs of peers that may hold blobs (besides a task's sources).
using blob_sources = std::function<std::vector<std::string>()>;

/// Tests this node ran, for /stats.
struct tester_counters {
  std::atomic<std::uint64_t> modules{0};
  std::atomic<std::uint64_t> tests{0};
  std::atomic<std::uint64_t> passed{0};
  std::atomic<std::uint64_t> failed{0};   // failed or errors
  std::atomic<std::uint64_t> fetched{0};  // blobs fetched from peers
  std::atomic<std::uint64_t> fetch_errors{0};
  std::atomic<std::uint64_t> workspaces_left{0}; // could not be removed
  std::atomic<std::uint64_t> workspaces_swept{0}; // left by an earlier run
};

class test_runner {
public:
  /// Sweeps the workspaces and clones an earlier run of the node left in
  /// the work dir (see work_dir.hpp).
  test_runner(tester_config cfg, std::string node_id, std::shared_ptr<blob_store> store,
              blob_fetcher fetch, blob_sources peers);

  /// The task function (an executor slot thread calls it).
  task_outcome run(const std::string& payload, const cancel_token& cancel);

  /// The modules of the project in the blob at `blob_path`: its test
  /// files (split "file", found without running anything) or its test ids
  /// (split "test", by `pytest --collect-only -q` in a sandboxed
  /// workspace, only on a node that runs tests). nullopt with `error` set
  /// if the archive is broken or empty, or no test is found.
  /// ctest: the names `ctest --show-only=json-v1` lists once the project
  /// is configured and built (see test_runner_ctest.cpp).
  /// `priors`, if given, gets a pytest module's prior weight for a first
  /// run (see evaluation_plan.hpp): its test file's size in bytes.
  std::optional<std::vector<std::string>>
  find_modules(const std::string& blob_path, const std::string& runner,
               const std::string& split, millis timeout_ms, std::string& error,
               std::map<std::string, std::uint64_t>* priors = nullptr);

  /// The blob here, fetched from `sources` or the peers if needed, and
  /// pinned against eviction while the pin lives; an empty pin with
  /// `error` set if no node had it.
  blob_pin ensure_blob(const std::string& sha, const std::vector<std::string>& sources,
                       std::string& error);

  const tester_config& config() const { return cfg_; }
  const tester_counters& counters() const { return counters_; }

private:
  struct workspace;
  std::optional<workspace> unpack(const std::string& blob_path, std::string& error);
  /// A sandboxed run of `argv` in `dir` with the runner's environment.
  sandbox_request request_in(const std::string& dir, millis timeout_ms,
                             std::vector<std::string> argv) const;
  module_result run_module(const module_task& t, const std::string& dir,
                           const cancel_token& cancel);
  /// One runner process for every module of `t`, reruns included.
  module_result run_process(const module_task& t, const std::string& dir,
                            const cancel_token& cancel);
  std::vector<test_case_result> run_pytest(const std::vector<std::string>& targets,
                                           const std::string& dir, millis timeout_ms,
                                           const cancel_token& cancel,
                                           module_result& into);

  // The ctest runner (test_runner_ctest.cpp): configure and build in the
  // workspace, then run or list its tests.
  bool build_cmake(const std::string& dir, millis deadline_ms, const cancel_token& cancel,
                   std::string& error, std::string& output);
  std::vector<test_case_result> run_ctest(const std::string& name, const std::string& dir,
                                          millis timeout_ms, const cancel_token& cancel,
                                          module_result& into);
  std::optional<std::vector<std::string>> list_ctest(const std::string& dir,
                                                     millis timeout_ms, std::string& error);

  tester_config cfg_;
  std::string node_id_;
  std::shared_ptr<blob_store> store_;
  blob_fetcher fetch_;
  blob_sources peers_;
  tester_counters counters_;
  std::atomic<std::uint64_t> next_ws_{0};
};

} // namespace dice
