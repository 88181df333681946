#pragma once
// The names of task states as users meet them (the API, the CLI, metrics,
// dice test's reports): the phases, with RUNNING split in two.
#include <cstddef>
#include <optional>
#include <string>

#include "dice.pb.h"
#include "known_tasks/task_query.hpp"

namespace dice {

/// "ready", "running", "failed", "expired", "canceled", "done" or
/// "removed".
std::string phase_name(wire::TaskPhase phase);

/// A state as the API names it: the phases, with RUNNING split into
/// "claimed" (a node claimed it ahead of a free slot; its execution has not
/// begun) and "running" (its execution began).
struct shown_state {
  const char* name;
  wire::TaskPhase phase;
  std::optional<bool> claimed_ahead; // with RUNNING
};
/// Every state the API names, in the order a summary lists them.
extern const shown_state shown_states[8];
/// The shown state of `name`; nullopt for anything else.
std::optional<shown_state> parse_state(const std::string& name);
/// The name of `state`: its phase's, or "claimed".
std::string state_name(const wire::TaskState& state);
/// How many of `counts` are in `s`.
std::size_t count_in(const task_counts& counts, const shown_state& s);
/// "ready, claimed, running, …": every name, for an error message.
std::string state_names();

} // namespace dice
