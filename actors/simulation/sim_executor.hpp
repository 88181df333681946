#pragma once
// An executor in virtual time, for the simulations of the production node
// (node_world::spawn_executor): a task ends `payload` milliseconds after it
// starts, unless canceled first, on `slots` slots; orders beyond the slots
// (prefetched claims) wait in order, as in the real executor's queue.
#include <cstddef>
#include <functional>
#include <map>
#include <string>

#include "common/time.hpp"
#include "executor/executor.hpp"

namespace dice {

/// Counts every start in `*starts` (task id -> executions begun); the
/// count outlives the actor, so a crashed node's runs stay counted.
/// `clock` stamps started_ms, as the slots' wall clock does.
executor spawn_sim_executor(caf::actor_system& sys, std::size_t slots,
                            std::map<std::string, int>* starts,
                            std::function<millis()> clock);

} // namespace dice
