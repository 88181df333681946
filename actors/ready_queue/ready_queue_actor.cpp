// The ready_queue subsystem as an actor: drives its ready_queue_machine (see
// ready_queue/ready_queue_machine.hpp) with the events routed to it.
#include "ready_queue/ready_queue_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

ready_queue_actor spawn_ready_queue(caf::actor_system& sys,
    const subsystem_config& cfg) {
  using self_ptr =
    ready_queue_actor::stateful_pointer<subsystem_state<ready_queue_machine>>;
  return sys.spawn([cfg](self_ptr self) -> ready_queue_actor::behavior_type {
    start_subsystem(self, cfg, std::make_unique<ready_queue_machine>(make_ready_queue_machine(cfg)), 1);
    return {
      [self](queue_wiring& w) { wire_up_and_tick(self, std::move(w)); },
      [self](const ev::batch& b) { handle_batch(self, b); },
      [self](const ev::task_changed& e) { handle(self, e); },
      [self](const ev::live_nodes& e) { handle(self, e); },
      [self](const ev::free_slots& e) { handle(self, e); },
      [self](tick_atom) { tick(self); },
    };
  });
}

} // namespace dice
