#pragma once
// An executor in virtual time, for the simulations of the production node
// (node_world::spawn_executor): a task ends `payload` milliseconds after it
// starts, unless canceled first, on `slots` slots; orders beyond the slots
// (prefetched claims) wait in order, as in the real executor's queue, and
// one whose expiry passed meanwhile is not run, as the real one's.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "executor/executor.hpp"

namespace dice {

/// One execution in virtual time: [start, end); end < 0 while it runs.
struct sim_run {
  std::string task_id;
  std::string node;
  millis start = 0;
  millis end = -1;
  std::uint32_t attempt = 0;
  bool ok = false; // ended with a success (not failed, canceled or crashed)
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
  void end_all(const std::string& node, millis at);
};

/// Records node `node`'s executions in `*log`; `clock`, the node's own,
/// stamps started_ms as the slots' wall clock does.
executor spawn_sim_executor(caf::actor_system& sys, std::size_t slots,
                            sim_runs* log, std::string node,
                            std::function<millis()> clock);

} // namespace dice
