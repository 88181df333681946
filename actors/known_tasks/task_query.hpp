#pragma once
// What the API asks of the replica: some tasks by id or state, or how many
// tasks are in each state. Answered inside known_tasks, so a request costs
// what it asks for, not a copy of the whole replica.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dice.pb.h"

namespace dice {

/// One task of the replica as the API shows it.
struct task_row {
  bool has_spec = false;
  wire::TaskSpec spec;
  wire::TaskState state;
  std::string owner; // enqueuer, or the coordinator that adopted it
};

/// The rows wanted: the tasks named in `ids` (every task if empty; unknown
/// ids are left out), and of those only the ones in `phase` if it is set.
struct task_query {
  std::vector<std::string> ids;
  std::optional<wire::TaskPhase> phase;
};

/// Tasks whose spec is known, per state (indexed by wire::TaskPhase).
struct task_counts {
  std::array<std::size_t, wire::TaskPhase_ARRAYSIZE> by_phase{};
  std::size_t total() const {
    std::size_t n = 0;
    for (auto k : by_phase)
      n += k;
    return n;
  }
};

} // namespace dice
