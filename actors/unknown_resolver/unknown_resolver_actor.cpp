// The unknown_resolver subsystem as an actor: drives its unknown_resolver_machine
// (unknown_resolver/unknown_resolver_machine.hpp) with the events routed to it.
#include "unknown_resolver/unknown_resolver_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

unknown_resolver_actor spawn_unknown_resolver(caf::actor_system& sys,
    const subsystem_config& cfg) {
  using self_ptr =
    unknown_resolver_actor::stateful_pointer<subsystem_state<unknown_resolver_machine>>;
  return sys.spawn([cfg](self_ptr self) -> unknown_resolver_actor::behavior_type {
    start_subsystem(self, cfg, std::make_unique<unknown_resolver_machine>(make_unknown_resolver_machine(cfg)));
    return {
      [self](queue_wiring& w) { wire_up_and_tick(self, std::move(w)); },
      [self](const ev::batch& b) { handle_batch(self, b); },
      [self](const ev::unknown_seen& e) { handle(self, e); },
      [self](const ev::spec_learned& e) { handle(self, e); },
      [self](const ev::stale_seen& e) { handle(self, e); },
      [self](const ev::known_question& e) { handle(self, e); },
      [self](const ev::answer_seen& e) { handle(self, e); },
      [self](tick_atom) { tick(self); },
    };
  });
}

} // namespace dice
