// The ready_queue subsystem as an actor: drives its ready_queue_machine (see
// ready_queue/ready_queue_machine.hpp) with the events routed to it.
#include "ready_queue/ready_queue_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

ready_queue_actor spawn_ready_queue(caf::actor_system& sys,
                                    const subsystem_config& cfg) {
  return spawn_subsystem<ready_queue_actor, ready_queue_machine>(
    sys, [cfg](auto self) {
      // Offers leave as soon as they are due: no tick pacing.
      start_subsystem(self, cfg, std::make_unique<ready_queue_machine>(
                                   make_ready_queue_machine(cfg)), 1);
      post_counters(self, cfg, stats_board::poster::ready_queue);
      return std::tuple<>{};
    });
}

} // namespace dice
