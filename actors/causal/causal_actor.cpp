#include "causal/causal_actor.hpp"

#include <algorithm>
#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "membership/live_peers.hpp"

namespace dice {

namespace {

struct causal_actor_state {
  std::unique_ptr<causal_machine> logic;
  broadcast_bridge bridge;
  std::function<millis()> clock;
  std::unique_ptr<live_peers> peers; // by id: the bridge knows addresses
  std::vector<causal_listener> listeners;
  bool tick_scheduled = false;
  static inline const char* name = "causal";
};

using causal_ptr = causal_actor::stateful_pointer<causal_actor_state>;

void flush(causal_ptr self) {
  auto& st = self->state;
  for (auto& s : st.logic->take_outbox()) {
    if (s.to.empty()) {
      self->send(st.bridge, broadcast_atom_v, std::move(s.msg));
      continue;
    }
    self->send(st.bridge, send_to_atom_v, s.to, std::move(s.msg));
  }
  for (auto& d : st.logic->take_delivered())
    for (auto& who : st.listeners)
      self->send(who, causal_atom_v, d);
  auto next = st.logic->next_deadline();
  if (!next || st.tick_scheduled)
    return;
  st.tick_scheduled = true;
  auto wait = std::max<millis>(*next - st.clock(), 1);
  self->delayed_send(self, std::chrono::milliseconds(wait), tick_atom_v);
}

causal_actor::behavior_type causal_fun(causal_ptr self, causal_actor_config cfg,
                                       broadcast_bridge bridge) {
  auto& st = self->state;
  st.logic = std::make_unique<causal_machine>(cfg.self_id, cfg.tuning);
  st.bridge = bridge;
  st.clock = cfg.clock ? cfg.clock : wall_clock_ms;
  st.peers = std::make_unique<live_peers>(cfg.self_id);
  auto on_wire = [self](const wire::Message& m) {
    auto& st = self->state;
    if (m.has_causal_event())
      st.logic->on_event(m.sender_id(), m.causal_event(), st.clock());
    else if (m.has_causal_digest())
      st.logic->on_digest(m.sender_id(), m.causal_digest(), st.clock());
  };
  return {
    [self, on_wire](inbound_atom, const wire::Message& m) {
      on_wire(m);
      flush(self);
    },
    [self, on_wire](inbound_atom, const std::vector<wire::Message>& ms) {
      for (const auto& m : ms)
        on_wire(m);
      flush(self);
    },
    [self](peer_event_atom, const peer_change& c) {
      auto& st = self->state;
      st.peers->apply(c, [&](const std::vector<std::string>& live) {
        st.logic->on_view(live);
      });
      flush(self);
    },
    [self](tick_atom) {
      auto& st = self->state;
      st.tick_scheduled = false;
      st.logic->tick(st.clock());
      flush(self);
    },
    [self](publish_atom, const std::string& topic, const std::string& data) {
      auto d = self->state.logic->publish(topic, data, self->state.clock());
      flush(self);
      return d;
    },
    [self](events_atom, const std::string& topic, std::uint64_t since) {
      std::vector<causal_delivery> out;
      for (const auto& d : self->state.logic->recent())
        if (d.index > since && (topic.empty() || d.topic == topic))
          out.push_back(d);
      return out;
    },
    [self](subscribe_atom, causal_listener& who) {
      self->state.listeners.push_back(std::move(who));
    },
    [self](stats_atom) { return self->state.logic->stats(); },
  };
}

} // namespace

causal_actor spawn_causal(caf::actor_system& sys, causal_actor_config cfg,
                          broadcast_bridge bridge, membership members) {
  auto c = sys.spawn(causal_fun, std::move(cfg), bridge);
  caf::anon_send(bridge, subscribe_atom_v, std::string{"causal"}, wire_listener{c});
  caf::anon_send(members, subscribe_atom_v, peer_listener{c});
  return c;
}

} // namespace dice
