#include "http_api/live_runners.hpp"

#include <algorithm>

#include "executor/shell_kind.hpp"

namespace dice {

bool live_runners::any_may_run() const {
  return wait_for_runner || unheard > 0
         || std::any_of(nodes.begin(), nodes.end(),
                        [](const runner_capabilities& n) { return !n.advertised(); });
}

std::vector<std::string> live_runners::kinds() const {
  return any_may_run() ? std::vector<std::string>{} : kinds_run(nodes);
}

std::string live_runners::problem(const wire::TaskSpec& task) const {
  if (any_may_run() || anyone_runs(nodes, task))
    return {};
  // The kind was checked against kinds(): only a shell program's allow
  // list can leave a task without a runner.
  std::string err;
  auto argv = shell_argv(task.payload(), err);
  auto program = argv.empty() ? std::string("its program")
                              : "'" + argv.front().substr(0, 128) + "'";
  return "shell: no live member allows " + program
         + " (--shell-allow); start one that does, or this node with "
           "--wait-for-runner to let the task wait";
}

} // namespace dice
