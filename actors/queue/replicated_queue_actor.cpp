#include "queue/replicated_queue.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

namespace dice {

namespace {

struct queue_actor_state {
  std::unique_ptr<queue_node> logic;
  broadcast_bridge bridge;
  membership members;
  executor exec;
  std::function<millis()> clock;
  std::map<std::string, std::string> addr_of; // node id -> HOST:PORT
  std::map<std::string, std::vector<caf::typed_response_promise<std::string>>>
    awaiting_ack;
  wire::Heartbeat last_versions;
  std::string id_prefix; // NODE-INCARNATION- : unique across restarts
  std::uint64_t next_task = 1;
  std::vector<task_listener> listeners;
  static inline const char* name = "replicated_queue";
};

using queue_ptr = replicated_queue::stateful_pointer<queue_actor_state>;

/// Carries out everything the replica asked for since the last call.
void flush(queue_ptr self) {
  auto& st = self->state;
  auto out = st.logic->take_outbox();
  for (auto& m : out.broadcasts)
    self->send(st.bridge, broadcast_atom_v, std::move(m));
  for (auto& s : out.sends) {
    auto it = st.addr_of.find(s.to);
    if (it != st.addr_of.end())
      self->send(st.bridge, send_atom_v, it->second, std::move(s.message));
  }
  for (auto& o : out.start)
    self->send(st.exec, run_atom_v,
               execution_request{o.task_id, o.attempt, o.spec.kind(),
                                 o.spec.payload()});
  for (auto& o : out.cancel)
    self->send(st.exec, cancel_atom_v, o.task_id);
  for (auto& id : out.acknowledged) {
    auto it = st.awaiting_ack.find(id);
    if (it == st.awaiting_ack.end())
      continue;
    for (auto& rp : it->second)
      rp.deliver(id);
    st.awaiting_ack.erase(it);
  }
  if (!st.listeners.empty()) {
    std::sort(out.changed.begin(), out.changed.end());
    out.changed.erase(std::unique(out.changed.begin(), out.changed.end()),
                      out.changed.end());
    for (auto& id : out.changed) {
      const auto* t = st.logic->replica().find(id);
      if (t == nullptr)
        continue;
      task_row r{t->has_spec, t->spec, t->state};
      if (!t->has_spec)
        r.spec.set_id(id);
      for (auto& who : st.listeners)
        self->send(who, task_event_atom_v, r);
    }
  }
  // Membership carries our version vector; tell it only when it changed.
  wire::Heartbeat hb;
  st.logic->fill_heartbeat(&hb);
  if (hb.SerializeAsString() != st.last_versions.SerializeAsString()) {
    st.last_versions = hb;
    self->send(st.members, versions_atom_v, std::move(hb));
  }
}

replicated_queue::behavior_type queue_fun(queue_ptr self, queue_actor_config cfg,
                                          broadcast_bridge bridge,
                                          membership members, executor exec) {
  auto& st = self->state;
  st.logic = std::make_unique<queue_node>(cfg.node_id, cfg.incarnation,
                                          cfg.incarnation, cfg.queue);
  char inc[17];
  std::snprintf(inc, sizeof(inc), "%llx", static_cast<unsigned long long>(cfg.incarnation));
  st.id_prefix = cfg.node_id + "-" + inc + "-";
  st.bridge = bridge;
  st.members = members;
  st.exec = exec;
  st.clock = cfg.clock ? cfg.clock : wall_clock_ms;
  auto tick = std::chrono::milliseconds(cfg.tick_ms);
  self->send(self, tick_atom_v);
  return {
    [self](inbound_atom, const wire::Message& m) {
      auto& st = self->state;
      auto now = st.clock();
      if (!m.sender_addr().empty())
        st.addr_of[m.sender_id()] = m.sender_addr();
      if (m.has_heartbeat())
        st.logic->on_peer_heartbeat(m.sender_id(), m.incarnation(),
                                    m.heartbeat(), now);
      else
        st.logic->on_message(m, now);
      flush(self);
    },
    [self](peer_event_atom, const peer_change& c) {
      auto& st = self->state;
      st.addr_of[c.id] = c.addr;
      // A restart loses whatever the old incarnation was running.
      if (c.to == peer_state::dead || c.restarted) {
        st.logic->on_peer_dead(c.id, st.clock());
        flush(self);
      }
    },
    [self](coordinator_atom, const std::string& coordinator) {
      auto& st = self->state;
      st.logic->set_coordinator(coordinator, st.clock());
      flush(self);
    },
    [self](executed_atom, const execution_result& r) {
      auto& st = self->state;
      st.logic->execution_finished(r.task_id, r.attempt, r.ok,
                                   r.ok ? r.result : r.reason, st.clock(),
                                   r.started_ms);
      flush(self);
    },
    [self, tick](tick_atom) {
      auto& st = self->state;
      st.logic->tick(st.clock());
      flush(self);
      self->delayed_send(self, tick, tick_atom_v);
    },
    [self](subscribe_atom, task_listener& who) {
      self->state.listeners.push_back(std::move(who));
    },
    [self](submit_atom, wire::TaskSpec& spec) -> caf::result<std::string> {
      auto& st = self->state;
      if (spec.id().empty())
        spec.set_id(st.id_prefix + std::to_string(st.next_task++));
      auto id = spec.id();
      if (!st.logic->submit(std::move(spec), st.clock()))
        return caf::make_error(caf::sec::invalid_argument,
                               "task id '" + id + "' is empty or already known");
      auto rp = self->make_response_promise<std::string>();
      st.awaiting_ack[id].push_back(rp);
      flush(self);
      return rp;
    },
    [self](remove_atom, const std::string& id) {
      auto& st = self->state;
      bool ok = st.logic->remove(id, st.clock()).has_value();
      flush(self);
      return ok;
    },
    [self](cancel_atom, const std::string& id) {
      auto& st = self->state;
      bool ok = st.logic->cancel(id, st.clock());
      flush(self);
      return ok;
    },
    [self](tasks_atom) {
      std::vector<task_row> rows;
      for (auto& [id, t] : self->state.logic->replica().tasks()) {
        task_row r{t.has_spec, t.spec, t.state,
                   self->state.logic->owner_of(id)};
        if (!t.has_spec)
          r.spec.set_id(id);
        rows.push_back(std::move(r));
      }
      return rows;
    },
    [self](stats_atom) { return self->state.logic->counters(); },
  };
}

} // namespace

replicated_queue spawn_replicated_queue(caf::actor_system& sys,
                                        queue_actor_config cfg,
                                        broadcast_bridge bridge,
                                        membership members, executor exec) {
  auto q = sys.spawn(queue_fun, std::move(cfg), bridge, members, exec);
  for (auto topic : {"queue", "sync", "membership"})
    caf::anon_send(bridge, subscribe_atom_v, std::string{topic}, wire_listener{q});
  caf::anon_send(members, subscribe_atom_v, peer_listener{q});
  caf::anon_send(exec, subscribe_atom_v, execution_listener{q});
  return q;
}

} // namespace dice
