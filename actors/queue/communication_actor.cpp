// The communication subsystem as an actor: every queue message the bridge
// receives, and every one for a single peer, passes through its
// communication_machine (communication/communication_machine.hpp); the
// other subsystems' broadcasts go to the bridge directly. It also hands
// membership the version vector and digest that heartbeats carry, and the
// stats board what the live peers run.
#include "communication/communication_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

namespace {

struct communication_state : subsystem_state<communication_machine> {
  membership members;
  // heartbeat_changes() when membership was last told; none: never told.
  std::optional<std::uint64_t> shared;
  // seats_changes() when the stats board last got the peers' runners.
  std::optional<std::uint64_t> runners_posted;
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

} // namespace

communication_actor spawn_communication(caf::actor_system& sys,
                                        const subsystem_config& cfg,
                                        membership members) {
  return spawn_subsystem<communication_actor, communication_machine,
                         communication_state>(sys, [cfg, members](self_ptr self) {
    start_subsystem(self, cfg,
                    std::make_unique<communication_machine>(
                      make_communication_machine(cfg)));
    auto& st = self->state;
    st.members = members;
    post_counters(self, cfg, stats_board::poster::communication);
    // What the live peers run goes to the board too, when it changed:
    // every submit reads it there.
    if (auto board = cfg.board)
      st.post_stats = [self, board, counters = std::move(st.post_stats)] {
        counters();
        auto& st = self->state;
        if (st.runners_posted == st.machine->seats_changes())
          return;
        st.runners_posted = st.machine->seats_changes();
        board->post_peers(st.machine->peer_runners());
      };
    // Every input's acknowledgements leave with what it emitted.
    st.before_dispatch = [self](ev::events& out) {
      // Owed to every datagram of the input, not to its last one.
      trace_outside(self, out, "acks");
      self->state.machine->send_acks(out);
    };
    // The next tick tells membership what changed, so a burst of ops costs
    // one message to membership; a peer's heartbeat changes nothing and
    // wakes no timer (every node hears dozens of them a second).
    st.due_also = [self]() -> std::optional<millis> {
      if (versions_unshared(self))
        return self->state.clock();
      return std::nullopt;
    };
    st.after_tick = [self] { share_versions(self); };
    using c = communication_machine;
    return std::make_tuple(
      [self](inbound_atom, const wire::Message& m) {
        handle_input(self, [&m, self](c& cm, millis now, ev::events& out) {
          trace_outside(self, out, "datagram", &m);
          cm.on_received(m, now, out);
        });
      },
      [self](inbound_atom, const std::vector<wire::Message>& ms) {
        handle_input(self, [&ms, self](c& cm, millis now, ev::events& out) {
          for (const auto& m : ms) {
            trace_outside(self, out, "datagram", &m);
            cm.on_received(m, now, out);
          }
        });
      },
      [self](peer_event_atom, const peer_change& p) {
        // A restart loses whatever the old incarnation was running.
        if (p.to != peer_state::dead && !p.restarted)
          return;
        handle_input(self, [&p](c& cm, millis now, ev::events& out) {
          cm.on_peer_dead(p.id, now, out);
        }, "peer dead");
      },
      [self](coordinator_atom, const std::string& who) {
        handle_input(self, [&who](c& cm, millis now, ev::events& out) {
          cm.set_coordinator(who, now, out);
        }, "coordinator");
      });
  });
}

} // namespace dice
