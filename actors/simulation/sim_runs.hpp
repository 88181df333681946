#pragma once
// What the simulated executors ran (sim_executor.hpp): every execution with
// its node, attempt and span of virtual time, kept outside the actors so a
// crashed node's runs stay counted.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "executor/execution.hpp"

namespace dice {

/// One execution in virtual time: [start, end); end < 0 while it runs.
struct sim_run {
  std::string task_id;
  std::string node;
  millis start = 0;
  millis end = -1;
  std::uint32_t attempt = 0;
  bool ok = false; // ended with a success (not failed, canceled or crashed)
  /// The ends of the task's parents, as its execution request carried them.
  std::vector<parent_end> parents;
};

/// What every simulated executor of a cluster ran; it outlives the actors,
/// so a crashed node's runs stay counted.
struct sim_runs {
  std::function<millis()> now;       // virtual time, unskewed: stamps runs
  /// Whether an execution fails (transiently); none: every one succeeds.
  std::function<bool(const execution_request&)> fails;
  std::map<std::string, int> starts; // task id -> executions begun
  std::vector<sim_run> runs;
  /// Ends every open run of `node` at `at` (its process died).
  void end_all(const std::string& node, millis at) {
    for (auto& r : runs)
      if (r.node == node && r.end < 0)
        r.end = at;
  }
};

} // namespace dice
