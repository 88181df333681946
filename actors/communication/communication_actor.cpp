// The communication subsystem as an actor: every queue message the bridge
// receives, and every one for a single peer, passes through its
// communication_machine (communication/communication_machine.hpp); the
// other subsystems' broadcasts go to the bridge directly. It also hands
// membership the version vector and digest that heartbeats carry.
#include "communication/communication_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

namespace {

struct communication_state : subsystem_state<communication_machine> {
  membership members;
  // heartbeat_changes() when membership was last told; none: never told.
  std::optional<std::uint64_t> shared;
  static inline const char* name = "communication";
};

using self_ptr = communication_actor::stateful_pointer<communication_state>;

bool versions_unshared(self_ptr self) {
  auto& st = self->state;
  return st.shared != st.machine->heartbeat_changes();
}

// Membership carries our version vector; tell it only when it changed.
void share_versions(self_ptr self) {
  auto& st = self->state;
  if (!versions_unshared(self))
    return;
  st.shared = st.machine->heartbeat_changes();
  wire::Heartbeat hb;
  st.machine->fill_heartbeat(&hb);
  self->send(st.members, versions_atom_v, std::move(hb));
}

// The next tick tells membership what changed, so a burst of ops costs one
// message to membership; a peer's heartbeat changes nothing and wakes no
// timer (every node hears dozens of them a second).
void arm_for_versions(self_ptr self) {
  if (versions_unshared(self))
    arm(self, self->state.clock());
  else
    arm(self);
}

template <class F>
void input(self_ptr self, F&& f) {
  ev::events out;
  f(*self->state.machine, self->state.clock(), out);
  self->state.machine->send_acks(out);
  dispatch(self, out);
  arm_for_versions(self);
}

} // namespace

communication_actor spawn_communication(caf::actor_system& sys,
                                        const subsystem_config& cfg,
                                        membership members) {
  return sys.spawn([cfg, members](self_ptr self)
                     -> communication_actor::behavior_type {
    start_subsystem(self, cfg,
                    std::make_unique<communication_machine>(
                      make_communication_machine(cfg)));
    self->state.members = members;
    post_counters(self, cfg, stats_board::poster::communication);
    return {
      [self](queue_wiring& w) { wire_up_and_tick(self, std::move(w)); },
      [self](inbound_atom, const wire::Message& m) {
        input(self, [&m](communication_machine& c, millis now, ev::events& out) {
          c.on_received(m, now, out);
        });
      },
      [self](inbound_atom, const std::vector<wire::Message>& ms) {
        input(self, [&ms](communication_machine& c, millis now, ev::events& out) {
          for (const auto& m : ms)
            c.on_received(m, now, out);
        });
      },
      [self](peer_event_atom, const peer_change& p) {
        // A restart loses whatever the old incarnation was running.
        if (p.to != peer_state::dead && !p.restarted)
          return;
        input(self, [&p](communication_machine& c, millis now, ev::events& out) {
          c.on_peer_dead(p.id, now, out);
        });
      },
      [self](coordinator_atom, const std::string& who) {
        input(self, [&who](communication_machine& c, millis now, ev::events& out) {
          c.set_coordinator(who, now, out);
        });
      },
      [self](const ev::batch& b) {
        input(self, [&b](communication_machine& c, millis now, ev::events& out) {
          feed(c, b, now, out);
        });
      },
      [self](const ev::originate& e) {
        input(self, [&e](communication_machine& c, millis now, ev::events& out) {
          c.on(e, now, out);
        });
      },
      [self](const ev::send_to& e) {
        input(self, [&e](communication_machine& c, millis now, ev::events& out) {
          c.on(e, now, out);
        });
      },
      [self](const ev::replica_digest& e) {
        input(self, [&e](communication_machine& c, millis now, ev::events& out) {
          c.on(e, now, out);
        });
      },
      [self](tick_atom) {
        tick(self);
        share_versions(self);
      },
      [self](runners_atom) { return self->state.machine->runners(); },
    };
  });
}

} // namespace dice
