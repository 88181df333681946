#include "broadcast_bridge/broadcast_bridge.hpp"

#include <map>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "broadcast_bridge/bundle.hpp"
#include "broadcast_bridge/topic.hpp"

namespace dice {

namespace {

struct bridge_actor_state {
  std::unique_ptr<bridge_state> logic;
  std::shared_ptr<transport> net;
  std::function<millis()> clock;
  std::vector<std::string> peers;
  std::map<std::string, std::vector<wire_listener>> listeners;
  // Broadcasts waiting for the flush this actor sent itself.
  std::vector<wire::Message> pending;
  static inline const char* name = "broadcast_bridge";
};

using bridge_ptr = broadcast_bridge::stateful_pointer<bridge_actor_state>;

void emit(bridge_ptr self, const std::optional<std::string>& bytes,
          const std::function<std::size_t(const std::string&)>& send) {
  if (!bytes)
    return; // oversize: counted by seal
  auto& st = self->state;
  auto sent = send(*bytes);
  if (sent == 0)
    st.logic->count_sent(bytes->size(), false);
  for (std::size_t i = 0; i < sent; ++i)
    st.logic->count_sent(bytes->size(), true);
}

broadcast_bridge::behavior_type bridge_fun(bridge_ptr self, bridge_config cfg) {
  auto& st = self->state;
  st.logic = std::make_unique<bridge_state>(cfg.self, cfg.cluster_key,
                                            cfg.limits);
  st.net = cfg.net;
  st.clock = cfg.clock ? cfg.clock : wall_clock_ms;
  // The transport's thread only enqueues; all logic runs in this actor.
  broadcast_bridge handle = self;
  st.net->start([handle](std::vector<datagram> batch) {
    caf::anon_send(handle, datagram_atom_v, std::move(batch));
  });
  auto net = st.net;
  self->attach_functor([net] { net->stop(); });
  return {
    [self](broadcast_atom, wire::Message& m) {
      // The flush queues behind every message already in the mailbox, so
      // the broadcasts of a burst go out together.
      auto& st = self->state;
      if (st.pending.empty())
        self->send(self, flush_atom_v);
      st.pending.push_back(std::move(m));
    },
    [self](flush_atom) {
      auto& st = self->state;
      auto parts = std::move(st.pending);
      st.pending.clear();
      for (auto& bytes : st.logic->seal_all(std::move(parts), st.clock()))
        emit(self, bytes,
             [&](const std::string& b) { return st.net->broadcast(st.peers, b); });
    },
    [self](send_atom, const std::string& to, wire::Message& m) {
      auto& st = self->state;
      emit(self, st.logic->seal(std::move(m), st.clock()),
           [&](const std::string& b) -> std::size_t {
             return st.net->send_to(to, b) ? 1 : 0;
           });
    },
    [self](peers_atom, std::vector<std::string>& peers) {
      self->state.peers = std::move(peers);
    },
    [self](subscribe_atom, const std::string& topic, wire_listener& who) {
      self->state.listeners[topic].push_back(std::move(who));
    },
    [self](datagram_atom, const std::vector<datagram>& batch) {
      auto& st = self->state;
      for (const auto& d : batch) {
        auto opened = st.logic->open(d.bytes);
        if (!opened)
          continue;
        for (auto& m : unbundle(std::move(*opened))) {
          auto it = st.listeners.find(topic_of(m));
          if (it == st.listeners.end())
            continue;
          for (auto& who : it->second)
            self->send(who, inbound_atom_v, m);
        }
      }
    },
    [self](stats_atom) { return self->state.logic->counters(); },
  };
}

} // namespace

broadcast_bridge spawn_broadcast_bridge(caf::actor_system& sys,
                                        bridge_config cfg) {
  return sys.spawn(bridge_fun, std::move(cfg));
}

} // namespace dice
