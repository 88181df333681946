#include "tester/tester_actor.hpp"

#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace dice {

namespace {

struct tester_state {
  broadcast_bridge bridge;
  std::shared_ptr<tester_parts> parts;
  static inline const char* name = "tester";
};

using tester_ptr = tester_actor::stateful_pointer<tester_state>;

void hear(tester_ptr self, const wire::Message& m) {
  if (m.body_case() != wire::Message::kTesterHello || m.sender_id().empty())
    return;
  const auto& hello = m.tester_hello();
  self->state.parts->peers->heard(m.sender_id(), hello.http(), hello.tls(),
                                  hello.runs_tests(), wall_clock_ms());
}

tester_actor::behavior_type tester_fun(tester_ptr self, broadcast_bridge bridge,
                                       std::shared_ptr<tester_parts> parts) {
  self->state.bridge = bridge;
  self->state.parts = parts;
  caf::anon_send(bridge, subscribe_atom_v, std::string{"tester"},
                 caf::actor_cast<wire_listener>(self));
  self->send(self, tick_atom_v);
  return {
    [self](inbound_atom, const wire::Message& m) { hear(self, m); },
    [self](inbound_atom, const std::vector<wire::Message>& ms) {
      for (auto& m : ms)
        hear(self, m);
    },
    [self](tick_atom) {
      auto& st = self->state;
      auto every = std::chrono::milliseconds(st.parts->cfg.hello_ms);
      self->delayed_send(self, every, tick_atom_v);
      if (st.parts->http.empty())
        return; // nothing to serve blobs from
      wire::Message m;
      auto* hello = m.mutable_tester_hello();
      hello->set_http(st.parts->http);
      hello->set_runs_tests(st.parts->cfg.enabled);
      hello->set_tls(!st.parts->tls_trust_file.empty());
      // Rides with the next broadcast (usually a heartbeat) if one comes.
      self->send(st.bridge, piggyback_atom_v, std::move(m),
                 static_cast<millis>(st.parts->cfg.hello_ms / 2));
    },
  };
}

} // namespace

tester_actor spawn_tester_actor(caf::actor_system& sys, broadcast_bridge bridge,
                                std::shared_ptr<tester_parts> parts) {
  return sys.spawn(tester_fun, std::move(bridge), std::move(parts));
}

} // namespace dice
