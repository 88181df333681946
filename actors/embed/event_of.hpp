#pragma once
// The node's internal events as the embedding API's plain values.
#include "causal/causal_machine.hpp"
#include "dice/task.hpp"
#include "known_tasks/task_query.hpp"

namespace dice::embed {

/// A replica's row (its merged state) as a task event.
task_event task_event_of(const task_row& r);

/// A causal delivery as a message.
message message_of(const causal_delivery& d);

} // namespace dice::embed
