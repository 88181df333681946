#include "election/election_actor.hpp"

#include <algorithm>
#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "common/tick_schedule.hpp"

namespace dice {

namespace {

struct election_actor_state {
  std::unique_ptr<election_node> logic;
  broadcast_bridge bridge;
  std::function<millis()> clock;
  std::vector<coordinator_listener> listeners;
  // The earliest tick already scheduled; ticks come at deadlines, not polls.
  tick_schedule ticks{1}; // when the machine ticks next
  static inline const char* name = "election";
};

using election_ptr = election::stateful_pointer<election_actor_state>;

/// Sends what the algorithm asked for, tells listeners about a new
/// coordinator and schedules the next tick.
void flush(election_ptr self) {
  auto& st = self->state;
  for (auto& d : st.logic->take_datagrams()) {
    if (d.to)
      self->send(st.bridge, send_to_atom_v, *d.to, std::move(d.message));
    else
      self->send(st.bridge, broadcast_atom_v, std::move(d.message));
  }
  for (auto& m : st.logic->take_mismatches())
    spdlog::warn("election: peer {} runs the {} algorithm, this node {}; its "
                 "election messages are ignored (every node of a cluster needs "
                 "the same --election)",
                 m.peer, m.algorithm, st.logic->algorithm().algorithm());
  if (auto c = st.logic->take_coordinator_change()) {
    const auto& a = st.logic->algorithm();
    spdlog::info("election ({}): coordinator {} (group {})", a.algorithm(),
                 c->empty() ? "none" : *c, a.group());
    for (auto& who : st.listeners)
      self->send(who, coordinator_atom_v, *c);
  }
  auto next = st.logic->next_deadline();
  if (!next)
    return;
  auto now = st.clock();
  if (auto t = st.ticks.arm(next, now))
    self->delayed_send(self, std::chrono::milliseconds(t->delay), tick_atom_v, t->seq);
}

election::behavior_type election_fun(election_ptr self,
                                     election_actor_config cfg,
                                     broadcast_bridge bridge) {
  auto& st = self->state;
  st.logic = std::make_unique<election_node>(cfg.algorithm, cfg.self_id,
                                             cfg.timing);
  st.bridge = bridge;
  st.clock = cfg.clock ? cfg.clock : wall_clock_ms;
  // Give membership a heartbeat to report the peers before electing alone.
  self->delayed_send(self,
                     std::chrono::milliseconds(membership_config{}.heartbeat_interval_ms),
                     tick_atom_v, tick_schedule::unscheduled);
  return {
    [self](inbound_atom, const wire::Message& m) {
      auto& st = self->state;
      st.logic->on_wire(m, st.clock());
      flush(self);
    },
    [self](inbound_atom, const std::vector<wire::Message>& ms) {
      auto& st = self->state;
      for (const auto& m : ms)
        st.logic->on_wire(m, st.clock());
      flush(self);
    },
    [self](peer_event_atom, const peer_change& c) {
      auto& st = self->state;
      st.logic->on_peer(c, st.clock());
      flush(self);
    },
    [self](tick_atom, std::uint64_t seq) {
      auto& st = self->state;
      auto now = st.clock();
      if (!st.ticks.fire(seq, now))
        return; // superseded by an earlier schedule
      st.logic->tick(now);
      flush(self);
    },
    [self](subscribe_atom, coordinator_listener& who) {
      self->send(who, coordinator_atom_v, self->state.logic->acting_coordinator());
      self->state.listeners.push_back(std::move(who));
    },
    [self](election_atom) { return self->state.logic->view(); },
  };
}

} // namespace

election spawn_election(caf::actor_system& sys, election_actor_config cfg,
                        broadcast_bridge bridge, membership members) {
  // Fail in the caller, not inside the actor.
  make_election(cfg.algorithm, cfg.self_id, cfg.timing);
  auto e = sys.spawn(election_fun, std::move(cfg), bridge);
  caf::anon_send(bridge, subscribe_atom_v, std::string{"election"},
                 wire_listener{e});
  caf::anon_send(members, subscribe_atom_v, peer_listener{e});
  return e;
}

} // namespace dice
