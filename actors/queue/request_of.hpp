#pragma once
// The execution request of a task's attempt, from the spec the replica
// gives (its inputs filled once its parents ended).
#include <cstdint>
#include <string>

#include "dice.pb.h"
#include "executor/execution.hpp"

namespace dice {

execution_request execution_request_of(const std::string& task_id,
                                       std::uint32_t attempt,
                                       const wire::TaskSpec& spec);

} // namespace dice
