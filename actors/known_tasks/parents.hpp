#pragma once
// Dependencies between tasks, as one replica sees them. A task naming
// parents (`after`) may run once every parent is done here; it receives
// their results. A parent that ends otherwise (failed, expired, canceled,
// removed) ends it too, unless it runs anyway (`run_after_failure`). A
// parent this replica does not know yet keeps it waiting: it never fails
// for that, since the parent's ENQUEUE may still be on its way.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dice.pb.h"
#include "known_tasks/known_tasks.hpp"

namespace dice {

struct parents_verdict {
  enum { wait, run, cancel } what = wait;
  /// The ends of the parents that ended, in `after` order (run: all).
  std::vector<wire::TaskInput> inputs;
  /// cancel: "parent X failed" (the first such parent in `after` order).
  std::string reason;
};

/// What `child` may do, as `replica` knows its parents now.
parents_verdict judge_parents(const wire::TaskSpec& child,
                              const known_tasks& replica);

/// The children that wait on each parent (those that have not ended).
class dependants {
public:
  void add(const wire::TaskSpec& child);
  void remove(const wire::TaskSpec& child);
  /// The children waiting on `parent` (empty if none).
  const std::set<std::string>& of(const std::string& parent) const;
  bool any(const std::string& parent) const { return !of(parent).empty(); }

private:
  std::map<std::string, std::set<std::string>> children_;
};

} // namespace dice
