#pragma once
// A child's heir: the node that ran the parent which ended last. It has a
// slot free the moment the child may run and learns that first, so the
// common matching gives it the child (as it gives a submitter its own new
// tasks) and it starts the child without a window: a rival hears the
// parent's end a network delay later, and the matching gives it other
// tasks. A chain then runs step after step on one node with no round trip.
#include <string>
#include <utility>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

/// How much longer than submit_claim_ms a parent's end may take to reach
/// the heir's offer: it passes through running_tasks, communication,
/// known_tasks and ready_queue first.
constexpr millis heir_claim_extra_ms = 4;

/// The heir and when its parent ended; {"", 0} for a task without inputs.
inline std::pair<std::string, millis> heir_of(const wire::TaskSpec& spec) {
  std::pair<std::string, millis> heir{"", 0};
  for (const auto& in : spec.inputs())
    if (in.phase() == wire::DONE && !in.node().empty()
        && (heir.first.empty() || in.finished_ms() > heir.second
            || (in.finished_ms() == heir.second && in.node() < heir.first)))
      heir = {in.node(), in.finished_ms()};
  return heir;
}

} // namespace dice
