// The ranking subsystem as an actor: drives its ranking_machine (see
// ranking/ranking_machine.hpp) with the events routed to it.
#include "ranking/ranking_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

ranking_actor spawn_ranking(caf::actor_system& sys,
                            const subsystem_config& cfg) {
  return spawn_subsystem<ranking_actor, ranking_machine>(sys, [cfg](auto self) {
    // Claim windows end on time: no tick pacing.
    start_subsystem(self, cfg, std::make_unique<ranking_machine>(
                                 make_ranking_machine(cfg)), 1);
    post_counters(self, cfg, stats_board::poster::ranking);
    return std::tuple<>{};
  });
}

} // namespace dice
