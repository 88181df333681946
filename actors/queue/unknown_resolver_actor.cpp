// The unknown_resolver subsystem as an actor: drives its
// unknown_resolver_machine (unknown_resolver/unknown_resolver_machine.hpp)
// with the events routed to it.
#include "unknown_resolver/unknown_resolver_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

unknown_resolver_actor spawn_unknown_resolver(caf::actor_system& sys,
                                              const subsystem_config& cfg) {
  return spawn_subsystem<unknown_resolver_actor, unknown_resolver_machine>(
    sys, [cfg](auto self) {
      start_subsystem(self, cfg, std::make_unique<unknown_resolver_machine>(
                                   make_unknown_resolver_machine(cfg)));
      return std::tuple<>{};
    });
}

} // namespace dice
