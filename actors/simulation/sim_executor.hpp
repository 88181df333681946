#pragma once
// An executor in virtual time, for the simulations of the production node
// (node_world::spawn_executor): a task ends `payload` milliseconds after it
// starts, unless canceled first, on `slots` slots; orders beyond the slots
// (prefetched claims) wait in order, as in the real executor's queue, and
// one whose expiry passed meanwhile is not run, as the real one's. A
// task's result is "slept N ms", followed for a task with parents by what
// its request said of them (" after a=done,b=failed").
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "executor/executor.hpp"
#include "simulation/sim_runs.hpp"

namespace dice {

/// Records node `node`'s executions in `*log`; `clock`, the node's own,
/// stamps started_ms as the slots' wall clock does.
executor spawn_sim_executor(caf::actor_system& sys, std::size_t slots,
                            sim_runs* log, std::string node,
                            std::function<millis()> clock);

} // namespace dice
