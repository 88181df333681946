#pragma once
// What a node can run: the task kinds it has registered and, for the shell
// kind, the programs its allow list names. Heartbeats advertise it, so that
// a submit no live member can run is refused instead of waiting for ever,
// and a node never claims a task it cannot run.
#include <string>
#include <vector>

#include "dice.pb.h"

namespace dice {

struct runner_capabilities {
  std::vector<std::string> kinds;       // sorted
  std::vector<std::string> shell_allow; // argv[0]s of the shell kind

  /// Whether this node can execute `task`.
  bool runs(const wire::TaskSpec& task) const;

  void to_wire(wire::NodeInfo* info) const;
  /// None (empty kinds) if the heartbeat advertised nothing.
  static runner_capabilities from_wire(const wire::NodeInfo& info);
  bool advertised() const { return !kinds.empty(); }

  bool operator==(const runner_capabilities& o) const {
    return kinds == o.kinds && shell_allow == o.shell_allow;
  }
};

/// Whether any of `nodes` can run `task`. A node that advertised nothing
/// (a simulated one, or one of an older version) counts as able to run
/// everything.
bool anyone_runs(const std::vector<runner_capabilities>& nodes,
                 const wire::TaskSpec& task);

/// The kind of dice test's evaluation records: every node runs it, for the
/// tester alone; users cannot submit it.
inline constexpr const char* evaluation_kind = "evaluation";

/// Every kind some of `nodes` runs for users (not evaluation_kind), sorted,
/// once each.
std::vector<std::string> kinds_run(const std::vector<runner_capabilities>& nodes);

} // namespace dice
