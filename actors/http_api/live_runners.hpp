#pragma once
// What the live members can run, as their heartbeats advertise, as the
// routes that take tasks (POST /tasks, /workflows, /schedules) check it: a
// task none of them can run would wait for ever, so it is refused unless
// the node lets such tasks wait (--wait-for-runner).
#include <string>
#include <vector>

#include "dice.pb.h"
#include "vocabulary/runner_capabilities.hpp"

namespace dice {

struct live_runners {
  std::vector<runner_capabilities> nodes;
  bool wait_for_runner = false;

  /// The kinds a submit may name: those some live member runs (empty, any
  /// kind, when tasks may wait for a runner), for parse_submit.
  std::vector<std::string> kinds() const;
  /// Why `task` is refused (its shell program no live member allows), or
  /// empty if some live member runs it or it may wait.
  std::string problem(const wire::TaskSpec& task) const;
};

} // namespace dice
