#include "membership/membership.hpp"
#include "membership/heartbeat_versions.hpp"

#include <chrono>
#include <optional>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

namespace dice {

namespace {

struct membership_actor_state {
  std::unique_ptr<membership_state> logic;
  broadcast_bridge bridge;
  std::function<millis()> clock;
  std::vector<peer_listener> listeners;
  peer_directory last_directory;
  std::optional<std::uint64_t> published_version; // of last_directory
  wire::Heartbeat extra; // merged into every heartbeat, but its versions:
  google::protobuf::RepeatedPtrField<wire::VersionEntry> current_versions;
  heartbeat_versions versions; // what of them each heartbeat says
  std::function<void(const std::string&)> on_fatal;
  bool stopped = false; // refused: silent from then on
  static inline const char* name = "membership";
};

using membership_ptr = membership::stateful_pointer<membership_actor_state>;

void publish(membership_ptr self, const std::vector<peer_change>& changes) {
  auto& st = self->state;
  for (auto& c : changes) {
    spdlog::info("peer {} ({}) {} -> {}{}{}", c.id, c.addr, to_string(c.from),
                 to_string(c.to), c.joined ? " joined" : "",
                 c.restarted ? " restarted" : "");
    for (auto& who : st.listeners)
      self->send(who, peer_event_atom_v, c);
    if (c.to != peer_state::dead && (c.from == peer_state::dead || c.restarted))
      st.versions.send_whole_next();
  }
  // Keep the bridge's map of where peers listen current (only when it
  // changed): it resolves ids and fans broadcasts out with it.
  auto version = st.logic->directory_version();
  if (st.published_version && *st.published_version == version)
    return;
  st.published_version = version;
  peer_directory d{st.logic->addresses(), st.logic->seeds_to_connect(),
                   st.logic->relay()};
  if (d != st.last_directory) {
    st.last_directory = d;
    self->send(st.bridge, peers_atom_v, std::move(d));
  }
}

// Tells each refused newcomer that its id is taken, and where.
void send_refusals(membership_ptr self) {
  auto& st = self->state;
  for (auto& r : st.logic->take_refusals()) {
    spdlog::warn("node {} at {} uses the id of the live node at {}: told it "
                 "to stop", r.id, r.newcomer_addr, r.holder_addr);
    wire::Message m;
    auto* notice = m.mutable_id_in_use();
    notice->set_id(r.id);
    notice->set_holder_addr(r.holder_addr);
    self->send(st.bridge, send_atom_v, r.newcomer_addr, std::move(m));
  }
}

void on_inbound(membership_ptr self, const wire::Message& m) {
  auto& st = self->state;
  if (st.stopped)
    return;
  auto now = st.clock();
  std::vector<peer_change> changes;
  switch (m.body_case()) {
    case wire::Message::kHeartbeat:
      changes = st.logic->on_heartbeat(m, now);
      break;
    case wire::Message::kConnect: {
      wire::Message reply;
      changes = st.logic->on_connect(m, now, &reply);
      if (reply.has_connect_rep())
        self->send(st.bridge, send_atom_v, m.sender_addr(), std::move(reply));
      break;
    }
    case wire::Message::kConnectRep:
      changes = st.logic->on_connect_rep(m, now);
      break;
    case wire::Message::kIdInUse:
      if (auto why = st.logic->on_id_in_use(m)) {
        spdlog::critical("{}", *why);
        st.stopped = true;
        if (st.on_fatal)
          st.on_fatal(*why);
      }
      return;
    default:
      return;
  }
  send_refusals(self);
  publish(self, changes);
}

membership::behavior_type membership_fun(membership_ptr self,
                                         broadcast_bridge bridge,
                                         membership_actor_config cfg) {
  auto& st = self->state;
  st.logic = std::make_unique<membership_state>(cfg.self_id, cfg.self_addr,
                                                cfg.incarnation, cfg.timing);
  for (auto& s : cfg.seeds)
    st.logic->add_seed(s);
  st.bridge = bridge;
  st.clock = cfg.clock ? cfg.clock : wall_clock_ms;
  st.on_fatal = std::move(cfg.on_fatal);
  auto check = std::chrono::milliseconds(cfg.timing.failure_check_ms);
  self->send(self, tick_atom_v);
  return {
    [self](inbound_atom, const wire::Message& m) { on_inbound(self, m); },
    [self](inbound_atom, const std::vector<wire::Message>& ms) {
      for (const auto& m : ms)
        on_inbound(self, m);
    },
    [self, check](tick_atom) {
      auto& st = self->state;
      if (st.stopped)
        return;
      auto now = st.clock();
      publish(self, st.logic->tick(now));
      self->delayed_send(self, check, tick_atom_v);
      if (!st.logic->heartbeat_due(now))
        return;
      for (auto& seed : st.logic->seeds_to_connect()) {
        wire::Message connect;
        connect.mutable_connect();
        self->send(st.bridge, send_atom_v, seed, std::move(connect));
      }
      auto hb = st.logic->make_heartbeat(now);
      hb.mutable_heartbeat()->MergeFrom(st.extra);
      st.versions.next(st.current_versions, hb.mutable_heartbeat());
      self->send(st.bridge, broadcast_atom_v, std::move(hb));
    },
    [self](subscribe_atom, peer_listener& who) {
      // A listener spawned after the first peers were found (the connect
      // reply can be that quick) still learns of them.
      for (auto& c : self->state.logic->known_peers())
        self->send(who, peer_event_atom_v, c);
      self->state.listeners.push_back(std::move(who));
    },
    [self](versions_atom, wire::Heartbeat& extra) {
      // What the queue advertises of this node weighs in the election.
      self->state.logic->set_self_capacity(extra.info());
      // The version vector is sent whole or in part (heartbeat_versions).
      self->state.current_versions.Swap(extra.mutable_versions());
      extra.clear_versions();
      self->state.extra = std::move(extra);
    },
    [self](nodes_atom) {
      return self->state.logic->view(self->state.clock());
    },
    [self](stats_atom) { return self->state.logic->counters(); },
  };
}

} // namespace

membership spawn_membership(caf::actor_system& sys, broadcast_bridge bridge,
                            membership_actor_config cfg) {
  auto m = sys.spawn(membership_fun, bridge, std::move(cfg));
  caf::anon_send(bridge, subscribe_atom_v, std::string{"membership"},
                 wire_listener{m});
  return m;
}

} // namespace dice
