#include "http_api/live_runners.hpp"

#include <algorithm>

#include "executor/shell_kind.hpp"

namespace dice {

std::vector<std::string> live_runners::kinds() const {
  return kinds_run(nodes);
}

std::string live_runners::problem(const wire::TaskSpec& task) const {
  // The cheap answers first (anyone_runs counts a member that advertised
  // nothing yet as running anything): the membership view only for a
  // refusal.
  if (wait_for_runner || anyone_runs(nodes, task) || unheard() > 0)
    return {};
  auto known = kinds();
  if (std::find(known.begin(), known.end(), task.kind()) == known.end()) {
    std::string names;
    for (const auto& k : known)
      names += (names.empty() ? "" : ", ") + k;
    return "unknown kind '" + task.kind() + "': no live member runs it (known: "
           + names + ")";
  }
  // A kind some member runs: only a shell program's allow list can leave
  // the task without a runner.
  std::string err;
  auto argv = shell_argv(task.payload(), err);
  auto program = argv.empty() ? std::string("its program")
                              : "'" + argv.front().substr(0, 128) + "'";
  return "shell: no live member allows " + program
         + " (--shell-allow); start one that does, or this node with "
           "--wait-for-runner to let the task wait";
}

} // namespace dice
