#pragma once
// What the live members can run, as their heartbeats advertise, as the
// routes that take tasks (POST /tasks, /workflows, /schedules) check it: a
// task none of them can run would wait for ever, so it is refused unless
// the node lets such tasks wait (--wait-for-runner). A member alive in the
// membership view whose heartbeat has not reached the queue yet, or whose
// first heartbeats came before its queue had said what it runs (one just
// started), might run anything: while one is unheard, nothing is refused.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "dice.pb.h"
#include "vocabulary/runner_capabilities.hpp"

namespace dice {

struct live_runners {
  std::vector<runner_capabilities> nodes;
  bool wait_for_runner = false;
  /// How many live members (as the membership view has them) are missing
  /// from `nodes`. Asked only when a task would be refused otherwise: the
  /// view is another actor's, and a submit that some heard member runs
  /// should not wait for it.
  std::function<std::size_t()> unheard = [] { return std::size_t{0}; };

  /// The kinds the heard members run.
  std::vector<std::string> kinds() const;
  /// Why `task` is refused (no live member runs its kind, or allows its
  /// shell program), or empty if some live member runs it, may run it
  /// (unheard, or heard before its queue said what it runs), or it may
  /// wait.
  std::string problem(const wire::TaskSpec& task) const;
};

} // namespace dice
