#pragma once
// The executor actor: runs task attempts on a bounded number of slots, off
// the actor scheduler, and reports each result to its listener.
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "executor/execution.hpp"
#include "executor/executor_stats.hpp"
#include "executor/task_kinds.hpp"
#include "type_ids.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::execution_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::execution_result)

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::executor_stats)

namespace dice {

/// Told when a slot takes an execution (begun: only task_id, attempt and
/// started_ms are set) and when it ends (executed).
using execution_listener =
  caf::typed_actor<caf::reacts_to<begun_atom, execution_result>,
                   caf::reacts_to<executed_atom, execution_result>>;

using executor = caf::typed_actor<
  caf::reacts_to<run_atom, execution_request>,
  caf::reacts_to<cancel_atom, std::string>,          // task id
  caf::reacts_to<subscribe_atom, execution_listener>, // who gets results
  caf::replies_to<stats_atom>::with<executor_stats>>;

executor spawn_executor(caf::actor_system& sys, std::size_t slots,
                        task_kinds kinds);

} // namespace dice
