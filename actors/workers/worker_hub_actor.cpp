#include "workers/worker_hub.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace dice {

namespace {

// The answer to a take of a worker the board does not know (any more).
const worker_take forgotten{false, {}, {}};

// A take waiting for work: answered when a job or a cancel comes for the
// worker, or when its wait ends (seq tells which wait a timeout is for).
struct pending_take {
  caf::typed_response_promise<worker_take> rp;
  std::size_t max = 0;
  std::uint64_t seq = 0;
};

struct hub_state {
  std::unique_ptr<worker_board> board;
  worker_hub_config cfg;
  std::map<std::uint64_t, std::shared_ptr<job_waiter>> waiters;
  std::map<std::string, pending_take> takes;
  std::uint64_t next_seq = 1;
  std::vector<runner_listener> listeners;
  std::vector<std::string> told_kinds; // the served kinds last told
  bool ticking = false;
  static inline const char* name = "worker_hub";

  millis now() const { return cfg.clock ? cfg.clock() : wall_clock_ms(); }

  // Stopped with slots still waiting: they end now instead of never.
  ~hub_state() {
    for (auto& [job, w] : waiters)
      w->settle(task_outcome::failure("the node stopped"));
    for (auto& [worker, t] : takes)
      t.rp.deliver(forgotten);
  }
};

using hub_ptr = worker_hub::stateful_pointer<hub_state>;


runner_capabilities running(const hub_state& st) {
  auto r = st.cfg.own;
  for (const auto& k : st.board->served_kinds())
    r.kinds.push_back(k);
  std::sort(r.kinds.begin(), r.kinds.end());
  r.kinds.erase(std::unique(r.kinds.begin(), r.kinds.end()), r.kinds.end());
  return r;
}

// The queue learns of a change of the served kinds before the failures of
// the jobs a lost worker held reach it (those travel through the slots and
// the executor), so the node does not claim their retries itself.
void tell_kinds(hub_ptr self) {
  auto& st = self->state;
  auto kinds = st.board->served_kinds();
  if (kinds == st.told_kinds)
    return;
  st.told_kinds = kinds;
  auto r = running(st);
  for (auto& who : st.listeners)
    self->send(who, kinds_atom_v, r);
}

void settle(hub_ptr self, const std::vector<job_end>& ends) {
  auto& st = self->state;
  for (const auto& e : ends) {
    auto w = st.waiters.find(e.job);
    if (w == st.waiters.end())
      continue;
    w->second->settle(e.ok ? task_outcome::success(e.result_or_reason)
                      : e.final ? task_outcome::invalid(e.result_or_reason)
                                : task_outcome::failure(e.result_or_reason));
    st.waiters.erase(w);
  }
}

// Answers the waiting takes that have something now.
void wake(hub_ptr self) {
  auto& st = self->state;
  for (auto it = st.takes.begin(); it != st.takes.end();) {
    if (!st.board->has_work(it->first)) {
      ++it;
      continue;
    }
    auto got = st.board->take(it->first, it->second.max, st.now());
    st.board->waiting(it->first, false, st.now());
    it->second.rp.deliver(worker_take{true, std::move(got.jobs), std::move(got.canceled)});
    it = st.takes.erase(it);
  }
}

// Leases run out only while some worker is joined: a tick a quarter lease
// apart, stopped when the last one leaves.
void arm(hub_ptr self) {
  auto& st = self->state;
  if (st.ticking || st.board->size() == 0)
    return;
  st.ticking = true;
  auto every = std::max<millis>(st.cfg.board.lease_ms / 4, 10);
  self->delayed_send(self, std::chrono::milliseconds(every), tick_atom_v);
}

worker_hub::behavior_type hub_fun(hub_ptr self, worker_hub_config cfg) {
  auto& st = self->state;
  st.board = std::make_unique<worker_board>(cfg.board);
  st.cfg = std::move(cfg);
  return {
    [self](run_atom, worker_job& j, std::shared_ptr<job_waiter>& w) {
      auto& st = self->state;
      auto job = j.job;
      auto kind = j.kind;
      if (!st.board->offer(std::move(j))) {
        // Claimed just before its last worker went: run it elsewhere.
        w->settle(task_outcome::failure("no worker serves kind '" + kind
                                        + "' on this node now"));
        return;
      }
      st.waiters[job] = std::move(w);
      wake(self);
    },
    [self](cancel_atom, std::uint64_t job) {
      auto& st = self->state;
      st.waiters.erase(job);
      if (st.board->cancel(job))
        wake(self);
    },
    [self](join_atom, const std::vector<std::string>& kinds, std::uint64_t concurrency,
           const std::string& name) {
      auto& st = self->state;
      worker_joined out;
      auto id = st.board->join(kinds, concurrency, name, st.now(), out.refused);
      if (id)
        out.id = *id;
      tell_kinds(self);
      arm(self);
      return out;
    },
    [self](take_atom, const std::string& worker, std::uint64_t max,
           millis wait_ms) -> caf::result<worker_take> {
      auto& st = self->state;
      auto rp = self->make_response_promise<worker_take>();
      if (!st.board->knows(worker)) {
        rp.deliver(forgotten);
        return rp;
      }
      auto now = st.now();
      wait_ms = std::clamp<millis>(wait_ms, 0, st.cfg.max_wait_ms);
      // An earlier wait of the same worker is over: it asks anew. A look
      // that does not wait leaves it be.
      if (auto old = st.takes.find(worker); old != st.takes.end() && wait_ms > 0) {
        old->second.rp.deliver(worker_take{});
        st.takes.erase(old);
      }
      if (st.board->has_work(worker) || wait_ms == 0) {
        auto got = st.board->take(worker, max, now);
        rp.deliver(worker_take{true, std::move(got.jobs), std::move(got.canceled)});
        return rp;
      }
      auto seq = st.next_seq++;
      st.board->waiting(worker, true, now);
      st.takes[worker] = pending_take{rp, max, seq};
      self->delayed_send(self, std::chrono::milliseconds(wait_ms), take_atom_v,
                         worker, seq);
      return rp;
    },
    [self](take_atom, const std::string& worker, std::uint64_t seq) {
      auto& st = self->state;
      auto it = st.takes.find(worker);
      if (it == st.takes.end() || it->second.seq != seq)
        return; // answered already
      st.board->waiting(worker, false, st.now());
      it->second.rp.deliver(worker_take{});
      st.takes.erase(it);
    },
    [self](finish_atom, const std::string& worker, job_end& end) {
      auto& st = self->state;
      if (!st.board->knows(worker))
        return worker_finish::unknown_worker;
      auto done = st.board->finish(worker, std::move(end), st.now());
      if (!done)
        return worker_finish::late;
      settle(self, {*done});
      wake(self); // room for the next job
      return worker_finish::accepted;
    },
    [self](leave_atom, const std::string& worker) {
      auto& st = self->state;
      if (!st.board->knows(worker))
        return false;
      if (auto t = st.takes.find(worker); t != st.takes.end()) {
        t->second.rp.deliver(forgotten);
        st.takes.erase(t);
      }
      auto ends = st.board->leave(worker);
      tell_kinds(self);
      settle(self, ends);
      return true;
    },
    [self](workers_atom) {
      auto& st = self->state;
      return worker_report{st.board->workers(), st.board->served_kinds(),
                           st.board->queued(), st.board->counters(),
                           st.cfg.board.lease_ms};
    },
    [self](subscribe_atom, runner_listener& who) {
      self->state.listeners.push_back(who);
      self->send(who, kinds_atom_v, running(self->state));
    },
    [self](tick_atom) {
      auto& st = self->state;
      st.ticking = false;
      auto ends = st.board->expire(st.now());
      tell_kinds(self); // first: see tell_kinds
      settle(self, ends);
      arm(self);
    },
  };
}

} // namespace

worker_hub spawn_worker_hub(caf::actor_system& sys, worker_hub_config cfg) {
  return sys.spawn(hub_fun, std::move(cfg));
}

outside_function worker_kind(worker_hub hub) {
  return [hub](const execution_request& req, const cancel_token& cancel) {
    // Unique among the nodes of this process, so unique on each.
    static std::atomic<std::uint64_t> next_job{1};
    auto waiter = std::make_shared<job_waiter>();
    worker_job j{next_job++, req.task_id, req.attempt, req.kind, req.payload,
                 req.time_limit_ms};
    auto job = j.job;
    cancel.on_cancel([waiter] { waiter->settle(task_outcome::failure("canceled")); });
    caf::anon_send(hub, run_atom_v, std::move(j), waiter);
    auto out = waiter->wait();
    if (cancel.canceled())
      caf::anon_send(hub, cancel_atom_v, job); // its worker is told
    return out;
  };
}

} // namespace dice
