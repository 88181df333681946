// The ranking subsystem as an actor: drives its ranking_machine (see
// ranking/ranking_machine.hpp) with the events routed to it.
#include "ranking/ranking_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

ranking_actor spawn_ranking(caf::actor_system& sys,
    const subsystem_config& cfg) {
  using self_ptr =
    ranking_actor::stateful_pointer<subsystem_state<ranking_machine>>;
  return sys.spawn([cfg](self_ptr self) -> ranking_actor::behavior_type {
    start_subsystem(self, cfg, std::make_unique<ranking_machine>(make_ranking_machine(cfg)), 1);
    post_counters(self, cfg, stats_board::poster::ranking);
    return {
      [self](queue_wiring& w) { wire_up_and_tick(self, std::move(w)); },
      [self](const ev::batch& b) { handle_batch(self, b); },
      [self](const ev::task_changed& e) { handle(self, e); },
      [self](const ev::claim_heard& e) { handle(self, e); },
      [self](const ev::task_offer& e) { handle(self, e); },
      [self](const ev::execution_over& e) { handle(self, e); },
      [self](const ev::live_nodes& e) { handle(self, e); },
      [self](tick_atom) { tick(self); },
    };
  });
}

} // namespace dice
