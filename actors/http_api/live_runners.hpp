#pragma once
// What the live members can run, as their heartbeats advertise, as the
// routes that take tasks (POST /tasks, /workflows, /schedules) check it: a
// task none of them can run would wait for ever, so it is refused unless
// the node lets such tasks wait (--wait-for-runner). A member alive in the
// membership view whose heartbeat has not reached the queue yet, or whose
// first heartbeats came before its queue had said what it runs (one just
// started), might run anything: while one is unheard, nothing is refused.
#include <string>
#include <vector>

#include "dice.pb.h"
#include "vocabulary/runner_capabilities.hpp"

namespace dice {

struct live_runners {
  std::vector<runner_capabilities> nodes;
  bool wait_for_runner = false;
  /// Live members (as the membership view has them) missing from `nodes`.
  std::size_t unheard = 0;

  /// Whether any task may be taken: it may wait, or a live member has not
  /// said yet what it runs.
  bool any_may_run() const;
  /// The kinds a submit may name: those some live member runs (empty, any
  /// kind, when tasks may wait for a runner or a member is unheard), for
  /// parse_submit.
  std::vector<std::string> kinds() const;
  /// Why `task` is refused (its shell program no live member allows), or
  /// empty if some live member runs it, may run it (unheard), or it may
  /// wait.
  std::string problem(const wire::TaskSpec& task) const;
};

} // namespace dice
