#pragma once
// One module of an evaluation: the payload of a `test` task (which project
// blob, which module, how to run it) and its result (one entry per test
// case), both JSON. A result is kept within the queue's result limit: the
// outputs are cut first, then the passed tests' entries are folded into
// counts, so the counts stay exact whatever the size.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tester/junit_report.hpp"

namespace dice {

struct module_task {
  std::string eval;       // the evaluation's id
  std::string blob;       // the project's SHA-256
  std::string module;     // pytest: a file or node id; ctest: a test's name;
                          // cmd: a command line
  std::string runner;     // "pytest", "ctest" or "cmd"
  std::uint32_t timeout_s = 0;
  std::uint32_t reruns = 0;
  std::vector<std::string> sources; // API base URLs of nodes holding the blob
  // pytest: more modules run by the same process, after `module` (light
  // modules grouped so they share one interpreter start; see
  // evaluation_plan.hpp). Empty for a module alone.
  std::vector<std::string> with;

  /// `module` followed by `with`: every module the task runs.
  std::vector<std::string> modules() const;
};

std::string encode_module_task(const module_task& t);
/// nullopt with `error` set if the payload is not a module task.
std::optional<module_task> decode_module_task(const std::string& payload,
                                              std::string& error);

struct outcome_counts {
  // xfailed: expected failures (pytest's xfail), apart from skips.
  std::uint64_t passed = 0, failed = 0, skipped = 0, xfailed = 0, errors = 0,
                flaky = 0;
  void add(const std::string& outcome, bool flaky);
  void add(const outcome_counts& o);
  std::uint64_t tests() const {
    return passed + failed + skipped + xfailed + errors;
  }
};

/// One module's part of the result of a task that ran several.
struct module_share {
  std::int64_t ms = 0;
  outcome_counts counts;
  std::string error;
};

struct module_result {
  std::string node;       // who ran it
  std::string error;      // the module did not report: crashed, timed out, ...
  std::string output;     // the runner's output tail when it did not report
  std::int64_t duration_ms = 0;
  std::vector<test_case_result> tests; // failed/error/flaky ones at least
  outcome_counts counts;  // every test, also those folded out of `tests`
  // A task of several modules: each one's part (never cut, so the counts
  // and durations per module stay exact); empty for one module.
  std::map<std::string, module_share> shares;
};

/// Which of `modules` test `test_id` belongs to: the module it equals, or
/// the one its "MODULE::" prefix names; "" if none.
std::string module_of(const std::vector<std::string>& modules, const std::string& test_id);

/// Each of `modules`' part of `r`, the result of one process that ran them
/// all: the counts of its tests, their time and an equal share of what no
/// test accounts for (interpreter start, collection), and r's error.
std::map<std::string, module_share> group_shares(const std::vector<std::string>& modules,
                                                 const module_result& r);

/// `r` as one result per module of `modules`, in that order, from its
/// shares; without shares (one module, or a task that ended before it
/// ran) each module stands for `r` whole, a failed task as one error each.
std::vector<module_result> split_group_result(const module_result& r,
                                              const std::vector<std::string>& modules);

/// One test's entry in results and reports: id, outcome, ms, and output
/// and flaky when set.
nlohmann::json test_case_json(const test_case_result& t);

/// JSON of at most `max_bytes` (the counts are never cut).
std::string encode_module_result(module_result r, std::size_t max_bytes);
/// A result as encode_module_result wrote it; an error result if not.
module_result decode_module_result(const std::string& text);

/// Test files as pytest finds them by default (test_*.py, *_test.py),
/// relative to `root`, sorted; directories pytest skips by default
/// (dot directories, build, dist, venv, node_modules, *.egg) are skipped.
std::vector<std::string> discover_pytest_files(const std::string& root);

/// Test ids from the output of `pytest --collect-only -q` (lines with "::").
std::vector<std::string> parse_collected_ids(const std::string& output);

/// Test names from `ctest --show-only=json-v1`; empty with `error` set if
/// the text is not such a list.
std::vector<std::string> parse_ctest_names(const std::string& json_text,
                                           std::string& error);

/// A `ctest -R` regular expression matching `name` and nothing else.
std::string ctest_exact_regex(const std::string& name);

} // namespace dice
