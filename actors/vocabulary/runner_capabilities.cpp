#include "vocabulary/runner_capabilities.hpp"

#include <algorithm>

#include "executor/shell_kind.hpp"

namespace dice {

bool runner_capabilities::runs(const wire::TaskSpec& task) const {
  if (!std::binary_search(kinds.begin(), kinds.end(), task.kind()))
    return false;
  if (task.kind() != "shell")
    return true;
  shell_config shell;
  shell.allow = shell_allow;
  return shell_allows(shell, task.payload());
}

void runner_capabilities::to_wire(wire::NodeInfo* info) const {
  info->clear_kinds();
  info->clear_shell_allow();
  for (const auto& k : kinds)
    info->add_kinds(k);
  for (const auto& p : shell_allow)
    info->add_shell_allow(p);
}

runner_capabilities runner_capabilities::from_wire(const wire::NodeInfo& info) {
  runner_capabilities c;
  c.kinds.assign(info.kinds().begin(), info.kinds().end());
  std::sort(c.kinds.begin(), c.kinds.end());
  c.shell_allow.assign(info.shell_allow().begin(), info.shell_allow().end());
  return c;
}

bool anyone_runs(const std::vector<runner_capabilities>& nodes,
                 const wire::TaskSpec& task) {
  return std::any_of(nodes.begin(), nodes.end(), [&](const auto& n) {
    return !n.advertised() || n.runs(task);
  });
}

std::vector<std::string> kinds_run(const std::vector<runner_capabilities>& nodes) {
  std::vector<std::string> all;
  for (const auto& n : nodes)
    all.insert(all.end(), n.kinds.begin(), n.kinds.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  all.erase(std::remove(all.begin(), all.end(), std::string(evaluation_kind)),
            all.end());
  return all;
}

} // namespace dice
