// The running_tasks subsystem as an actor: drives its running_tasks_machine
// (running_tasks/running_tasks_machine.hpp) with the events routed to it and
// the executor's reports, which come here directly.
#include "running_tasks/running_tasks_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

running_tasks_actor spawn_running_tasks(caf::actor_system& sys,
                                        const subsystem_config& cfg) {
  return spawn_subsystem<running_tasks_actor, running_tasks_machine>(
    sys, [cfg](auto self) {
      start_subsystem(self, cfg, std::make_unique<running_tasks_machine>(
                                   make_running_tasks_machine(cfg)));
      post_counters(self, cfg, stats_board::poster::running_tasks);
      return std::make_tuple(
        [self](begun_atom, const execution_result& r) {
          handle(self, ev::execution_begun{r.task_id, r.attempt, r.started_ms});
        },
        [self](executed_atom, const execution_result& r) {
        handle(self, ev::execution_report{r.task_id, r.attempt, r.ok,
                                          r.ok ? r.result : r.reason,
                                          r.started_ms, r.final, r.expired});
      });
    });
}

} // namespace dice
