#include "mutex/mutex_actor.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <spdlog/spdlog.h>

#include "common/tick_schedule.hpp"
#include "known_tasks/task_state.hpp"

namespace dice {

namespace {

/// A `dice lock` client: its lease, and its answer while it waits.
struct client {
  std::string resource;
  millis lease_until = 0;
  millis answer_by = 0;
  std::optional<caf::typed_response_promise<lock_reply>> waiting;
};

struct mutex_actor_state {
  std::unique_ptr<mutex_node> logic;
  broadcast_bridge bridge;
  replicated_queue queue;
  std::function<millis()> clock;
  std::map<std::string, client> clients; // by token
  std::uint64_t next_token = 0;
  std::string self_id;
  tick_schedule ticks{1}; // when the machine ticks next
  static inline const char* name = "mutex";
};

using mutex_ptr = mutex_actor::stateful_pointer<mutex_actor_state>;

void answer(client& c, lock_reply r) {
  if (c.waiting) {
    c.waiting->deliver(std::move(r));
    c.waiting.reset();
  }
}

/// Sends what the algorithm asked for, answers clients whose lock came,
/// stops the work of owners that lost theirs, and schedules the next tick.
void flush(mutex_ptr self) {
  auto& st = self->state;
  auto now = st.clock();
  for (auto& d : st.logic->take_datagrams()) {
    if (d.to)
      self->send(st.bridge, send_to_atom_v, *d.to, std::move(d.message));
    else
      self->send(st.bridge, broadcast_atom_v, std::move(d.message));
  }
  for (const auto& [owner, r] : st.logic->take_assigned()) {
    auto it = st.clients.find(owner);
    if (it != st.clients.end())
      answer(it->second, lock_reply{owner, true, ""});
  }
  for (const auto& [owner, r] : st.logic->take_lost()) {
    spdlog::warn("mutex: {} lost lock {} (its majority stopped confirming)",
                 owner, r);
    if (owner.rfind("task:", 0) == 0) // its work must stop
      self->request(st.queue, std::chrono::seconds(5), cancel_atom_v,
                    owner.substr(5, owner.rfind('#') - 5))
        .then([](bool) {});
    st.clients.erase(owner); // its next renewal learns it is lost
  }
  // Answer clients that waited long enough, forget those that stopped
  // renewing (a killed `dice lock`).
  std::optional<millis> next = st.logic->next_deadline();
  auto soonest = [&](millis t) {
    if (!next || t < *next)
      next = t;
  };
  bool dropped = false;
  for (auto it = st.clients.begin(); it != st.clients.end();) {
    auto& c = it->second;
    if (now >= c.lease_until) {
      answer(c, lock_reply{it->first, false, "lost"});
      st.logic->owners().drop(it->first);
      it = st.clients.erase(it);
      dropped = true;
      continue;
    }
    if (c.waiting && now >= c.answer_by)
      answer(c, lock_reply{it->first, false, ""});
    soonest(c.lease_until);
    if (c.waiting)
      soonest(c.answer_by);
    ++it;
  }
  if (dropped)
    soonest(now);
  if (!next)
    return;
  if (auto t = st.ticks.arm(next, now))
    self->delayed_send(self, std::chrono::milliseconds(t->delay), tick_atom_v, t->seq);
}

mutex_actor::behavior_type mutex_fun(mutex_ptr self, mutex_actor_config cfg,
                                     broadcast_bridge bridge,
                                     replicated_queue queue) {
  auto& st = self->state;
  st.logic = std::make_unique<mutex_node>(cfg.algorithm, cfg.self_id, cfg.timing,
                                          cfg.owners, cfg.idle_ms);
  st.self_id = cfg.self_id;
  st.bridge = bridge;
  st.queue = queue;
  st.clock = cfg.clock ? cfg.clock : wall_clock_ms;
  // The ready queue asks for locks from its own actor: it wakes us here.
  cfg.owners->on_want([h = caf::actor_cast<mutex_actor>(self)] {
    caf::anon_send(h, tick_atom_v);
  });
  // The owners (shared with the ready queue) must not keep us alive.
  self->attach_functor([owners = cfg.owners] { owners->on_want(nullptr); });
  return {
    [self](inbound_atom, const wire::Message& m) {
      self->state.logic->on_wire(m, self->state.clock());
      flush(self);
    },
    [self](inbound_atom, const std::vector<wire::Message>& ms) {
      auto now = self->state.clock();
      for (const auto& m : ms)
        self->state.logic->on_wire(m, now);
      flush(self);
    },
    [self](peer_event_atom, const peer_change& c) {
      self->state.logic->on_peer(c, self->state.clock());
      flush(self);
    },
    [self](coordinator_atom, const std::string& c) {
      self->state.logic->on_coordinator(c, self->state.clock());
      flush(self);
    },
    [self](task_event_atom, const task_row& row) {
      // A task attempt's locks go when the task ends, a later attempt is
      // ready, or another node runs it; not while this node's claim of it
      // is on its way (the ready event of the attempt may come after).
      const auto& s = row.state;
      auto& st = self->state;
      bool ended = is_terminal(s.phase());
      bool elsewhere = s.phase() == wire::RUNNING
                       && s.claim().node_id() != st.self_id;
      auto& owners = st.logic->owners();
      bool dropped = false;
      for (const auto& o : owners.owners_with_prefix("task:" + row.spec.id() + "#")) {
        auto attempt = std::stoul(o.substr(o.rfind('#') + 1));
        if (ended || (elsewhere && s.attempt() >= attempt)
            || (s.phase() == wire::READY && s.attempt() > attempt)) {
          owners.drop(o);
          dropped = true;
        }
      }
      if (!dropped)
        return;
      st.logic->tick(st.clock());
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
    [self](tick_atom) { // woken by the ready queue: tick now, off schedule
      auto& st = self->state;
      st.logic->tick(st.clock());
      flush(self);
    },
    [self](lock_atom, const std::string& r, const std::string& token,
           millis wait_ms, millis lease_ms) {
      auto& st = self->state;
      auto rp = self->make_response_promise<lock_reply>();
      auto now = st.clock();
      std::string t = token;
      if (t.empty()) {
        t = "lock-" + std::to_string(++st.next_token) + "-" + std::to_string(now);
        st.clients[t].resource = r;
        st.logic->owners().wait(t, r);
      }
      auto it = st.clients.find(t);
      if (it == st.clients.end() || it->second.resource != r) {
        rp.deliver(lock_reply{t, false, "lost"});
        return rp;
      }
      auto& c = it->second;
      c.lease_until = now + lease_ms;
      answer(c, lock_reply{t, false, ""}); // an earlier wait of this client
      if (st.logic->owners().owns(t, r)) {
        rp.deliver(lock_reply{t, true, ""});
        return rp;
      }
      c.answer_by = now + wait_ms;
      c.waiting = rp;
      st.logic->tick(now);
      flush(self);
      return rp;
    },
    [self](unlock_atom, const std::string& r, const std::string& token) {
      auto& st = self->state;
      auto it = st.clients.find(token);
      if (it == st.clients.end() || it->second.resource != r)
        return false;
      answer(it->second, lock_reply{token, false, "lost"});
      st.clients.erase(it);
      st.logic->owners().drop(token);
      st.logic->tick(st.clock());
      flush(self);
      return true;
    },
    [self](locks_atom) { return self->state.logic->view(); },
  };
}

} // namespace

mutex_actor spawn_mutex(caf::actor_system& sys, mutex_actor_config cfg,
                        broadcast_bridge bridge, membership members,
                        election elect, replicated_queue queue) {
  // Fail in the caller, not inside the actor.
  make_mutex(cfg.algorithm, cfg.self_id, cfg.timing);
  if (!cfg.owners)
    cfg.owners = std::make_shared<lock_owners>();
  auto m = sys.spawn(mutex_fun, std::move(cfg), bridge, queue);
  caf::anon_send(bridge, subscribe_atom_v, std::string{"mutex"}, wire_listener{m});
  caf::anon_send(members, subscribe_atom_v, peer_listener{m});
  caf::anon_send(elect, subscribe_atom_v, coordinator_listener{m});
  // Only tasks that name locks hold any: the others need not be heard.
  caf::anon_send(queue, subscribe_atom_v, task_listener{m}, locks_atom_v);
  return m;
}

} // namespace dice
