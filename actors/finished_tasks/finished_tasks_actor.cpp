// The finished_tasks subsystem as an actor: drives its finished_tasks_machine (see
// finished_tasks/finished_tasks_machine.hpp) with the events routed to it.
#include "finished_tasks/finished_tasks_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

finished_tasks_actor spawn_finished_tasks(caf::actor_system& sys,
    const subsystem_config& cfg) {
  using self_ptr =
    finished_tasks_actor::stateful_pointer<subsystem_state<finished_tasks_machine>>;
  return sys.spawn([cfg](self_ptr self) -> finished_tasks_actor::behavior_type {
    start_subsystem(self, cfg, std::make_unique<finished_tasks_machine>());
    return {
      [self](queue_wiring& w) { wire_up(self, std::move(w)); },
      [self](const ev::batch& b) { handle_batch(self, b); },
      [self](const ev::task_changed& e) { handle(self, e); },
    };
  });
}

} // namespace dice
