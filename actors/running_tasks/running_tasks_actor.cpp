// The running_tasks subsystem as an actor: drives its running_tasks_machine
// (running_tasks/running_tasks_machine.hpp) with the events routed to it.
#include "running_tasks/running_tasks_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

running_tasks_actor spawn_running_tasks(caf::actor_system& sys,
    const subsystem_config& cfg) {
  using self_ptr =
    running_tasks_actor::stateful_pointer<subsystem_state<running_tasks_machine>>;
  return sys.spawn([cfg](self_ptr self) -> running_tasks_actor::behavior_type {
    start_subsystem(self, cfg, std::make_unique<running_tasks_machine>(make_running_tasks_machine(cfg)));
    post_counters(self, cfg, stats_board::poster::running_tasks);
    return {
      [self](queue_wiring& w) { wire_up_and_tick(self, std::move(w)); },
      [self](const ev::batch& b) { handle_batch(self, b); },
      [self](const ev::task_changed& e) { handle(self, e); },
      [self](const ev::running_heard& e) { handle(self, e); },
      [self](const ev::start_execution& e) { handle(self, e); },
      [self](const ev::claim_heard& e) { handle(self, e); },
      [self](const ev::execution_report& e) { handle(self, e); },
      [self](executed_atom, const execution_result& r) {
        // The executor reports here directly, not through the facade.
        handle(self, ev::execution_report{r.task_id, r.attempt, r.ok,
                                          r.ok ? r.result : r.reason,
                                          r.started_ms});
      },
      [self](const ev::recover_member& e) { handle(self, e); },
      [self](tick_atom) { tick(self); },
    };
  });
}

} // namespace dice
