#include "queue/replicated_queue.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <set>
#include <iterator>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "known_tasks/task_state.hpp"
#include "queue/end_waits.hpp"

namespace dice {

namespace {

// Told once: no error when the task is replicated, else why it never
// will be.
using ack_waiter = std::function<void(const caf::error&)>;

// Told a task's rows as known_tasks has them (or why not).
using rows_answer = std::function<void(caf::expected<std::vector<task_row>>)>;

// A submitted task is replicated once another replica acknowledged it and
// this node's replica holds it (in its journal, when it keeps one: the
// acknowledgement may overtake the local merge).
struct awaiting {
  std::vector<ack_waiter> waiters;
  bool acknowledged = false;
  bool held = false;
};

struct facade_state {
  queue_handles to;
  // Submits waiting until their task is replicated (or refused).
  std::map<std::string, awaiting> awaiting_ack;
  std::string id_prefix; // NODE-INCARNATION- : unique across restarts
  std::uint64_t next_task = 1;
  // Who hears task changes; `naming_locks`: only of tasks that name
  // locks (and changes with no spec to tell), as the lock table needs.
  struct listener {
    task_listener who;
    bool naming_locks = false;
  };
  std::vector<listener> listeners;
  std::size_t submit_window = queue_config{}.submit_window;
  std::size_t submit_chunk = queue_config{}.submit_chunk;
  std::size_t submit_in_flight = queue_config{}.submit_in_flight;
  // Chunks not yet handed to known_tasks (see release()), and how many
  // tasks handed over are not yet acknowledged.
  std::deque<std::vector<wire::TaskSpec>> held_chunks;
  std::set<std::string> in_flight;
  // All-or-nothing submits still waiting for replication, by batch number.
  struct batch {
    std::size_t missing = 0;
    bool refused = false; // some task was refused by known_tasks
    std::vector<caf::typed_response_promise<bool>> waiters;
  };
  std::map<std::uint64_t, std::shared_ptr<batch>> batches;
  std::uint64_t next_batch = 1;
  // Long polls waiting for a task to end (end_waits.hpp), by ticket: each
  // is told the task's rows once, when it ended or its time is up.
  end_waits waits;
  std::map<end_waits::ticket, rows_answer> wait_answers;
  // The subsystems' counters, as each last posted them.
  std::shared_ptr<stats_board> board = std::make_shared<stats_board>();
  static inline const char* name = "replicated_queue";

  // Stopped (or crashed, in a simulation) with submits still unconfirmed:
  // their callers get an error now instead of waiting for ever.
  ~facade_state() {
    for (auto& [id, a] : awaiting_ack)
      for (auto& w : a.waiters)
        w(caf::make_error(caf::sec::request_receiver_down,
                          "node stopped before task '" + id
                            + "' was replicated"));
  }
};

using facade_ptr = replicated_queue::stateful_pointer<facade_state>;

// Spawns the subsystem actors, tied to the facade's lifetime, and tells
// each where the others are.
void spawn_subsystems(facade_ptr self, const queue_actor_config& cfg,
                      broadcast_bridge bridge, membership members,
                      executor exec) {
  auto& sys = self->system();
  subsystem_config sc;
  sc.node_id = cfg.node_id;
  sc.incarnation = cfg.incarnation;
  // The node id too: nodes started in the same millisecond share an
  // incarnation, and must not draw the same back-offs and jitter.
  sc.seed = fnv1a_64(cfg.node_id) ^ cfg.incarnation;
  sc.queue = cfg.queue;
  sc.joins = cfg.joins;
  sc.tick_ms = cfg.tick_ms;
  sc.clock = cfg.clock;
  sc.board = self->state.board;
  sc.trace = cfg.trace;
  auto& to = self->state.to;
  to.communication = spawn_communication(sys, sc, members);
  to.known_tasks = spawn_known_tasks(sys, sc, cfg.journal);
  to.ready_queue = spawn_ready_queue(sys, sc);
  to.ranking = spawn_ranking(sys, sc);
  to.running_tasks = spawn_running_tasks(sys, sc);
  to.unknown_resolver = spawn_unknown_resolver(sys, sc);
  to.bridge = bridge;
  to.exec = exec;
  to.world = caf::actor_cast<queue_world>(self);
  auto wiring = std::make_shared<const queue_handles>(to);
  for_each_station([&](auto s) {
    if constexpr (is_subsystem(s())) {
      self->link_to(handle_of<s()>(to));
      self->send(handle_of<s()>(to), queue_wiring{wiring});
    }
  });
  // After every wiring: what the journal restores goes to wired actors.
  self->send(to.known_tasks, restore_atom_v);
  // What the bridge receives for the queue goes to communication directly,
  // not through this facade: one hop fewer for every datagram.
  for (auto topic : {"queue", "sync", "membership"})
    self->send(bridge, subscribe_atom_v, std::string{topic},
               wire_listener{to.communication});
  // Membership's peer events and the election's outcome go to
  // communication directly, too.
  self->send(members, subscribe_atom_v, peer_listener{to.communication});
  if (cfg.elector)
    self->send(cfg.elector, subscribe_atom_v,
               coordinator_listener{to.communication});
  // The executor reports to running_tasks directly.
  self->send(exec, subscribe_atom_v,
             caf::actor_cast<execution_listener>(to.running_tasks));
}

void release(facade_ptr self);
void answer_waits(facade_ptr self, std::vector<end_waits::ticket> tickets,
                  const std::string& id);

// Carries out what the subsystems tell the user: submits replicated, and
// task changes for the listeners.
struct world_out {
  facade_ptr self;

  void operator()(const ev::acknowledged& e) {
    if (self->state.in_flight.erase(e.task_id) > 0)
      release(self);
    note(e.task_id, &awaiting::acknowledged);
  }
  void note(const std::string& task_id, bool awaiting::*fact) {
    auto& st = self->state;
    auto it = st.awaiting_ack.find(task_id);
    if (it == st.awaiting_ack.end())
      return;
    it->second.*fact = true;
    if (!it->second.acknowledged || !it->second.held)
      return;
    auto waiters = std::move(it->second.waiters);
    st.awaiting_ack.erase(it);
    for (auto& w : waiters)
      w(caf::error{});
  }
  void operator()(const ev::task_changed& e) {
    auto& st = self->state;
    if (e.spec)
      note(e.task_id, &awaiting::held);
    if (is_terminal(e.state.phase()) && st.waits.size() > 0)
      answer_waits(self, st.waits.take(e.task_id), e.task_id);
    // Most tasks name no lock: the lock table is not told of them, one
    // message and one copy of the spec fewer per change.
    bool names_locks = !e.spec || e.spec->locks_size() > 0;
    std::optional<task_row> r;
    for (auto& l : st.listeners) {
      if (l.naming_locks && !names_locks)
        continue;
      if (!r) {
        r.emplace(task_row{e.spec != nullptr, e.spec ? *e.spec : wire::TaskSpec{},
                           e.state, ""});
        if (!e.spec)
          r->spec.set_id(e.task_id);
      }
      self->send(l.who, task_event_atom_v, *r);
    }
  }
  // The routing sends the world no other events; one it does send needs
  // its handler above, or this fails to compile.
  template <class E>
  void operator()(const E&) {
    static_assert(!to_world_v<E>, "an event for the user needs its handler in world_out");
  }
};

// known_tasks refused the task: its waiters learn why.
void refuse(facade_ptr self, const std::string& id) {
  if (self->state.in_flight.erase(id) > 0)
    release(self);
  auto& waiting = self->state.awaiting_ack;
  auto it = waiting.find(id);
  if (it == waiting.end())
    return;
  auto waiters = std::move(it->second.waiters);
  waiting.erase(it);
  auto why = caf::make_error(caf::sec::invalid_argument,
                             "task id '" + id + "' is empty or already known");
  for (auto& w : waiters)
    w(why);
}

// Gives each task its id (if it has none) and a waiter made by
// `waiter_for`, then queues them for known_tasks in chunks of
// submit_chunk tasks, one message each, so the ENQUEUEs of a chunk leave
// together (see release() for the pace). The waiters come first: an
// acknowledgement may overtake known_tasks' answer. Returns the ids.
std::vector<std::string>
enqueue(facade_ptr self, std::vector<wire::TaskSpec> specs,
        const std::function<ack_waiter(const std::string&)>& waiter_for) {
  auto& st = self->state;
  std::vector<std::string> ids;
  ids.reserve(specs.size());
  for (auto& spec : specs) {
    if (spec.id().empty())
      spec.set_id(st.id_prefix + std::to_string(st.next_task++));
    ids.push_back(spec.id());
    st.awaiting_ack[spec.id()].waiters.push_back(waiter_for(spec.id()));
  }
  for (std::size_t first = 0; first < specs.size(); first += st.submit_chunk) {
    auto last = std::min(specs.size(), first + st.submit_chunk);
    st.held_chunks.emplace_back(std::make_move_iterator(specs.begin() + first),
                                std::make_move_iterator(specs.begin() + last));
  }
  release(self);
  return ids;
}

// Hands held chunks to known_tasks while fewer than submit_in_flight of
// the tasks handed over wait for an acknowledgement: a burst leaves at the
// pace the peers take it in instead of overflowing their receive buffers.
void release(facade_ptr self) {
  auto& st = self->state;
  while (!st.held_chunks.empty() && st.in_flight.size() < st.submit_in_flight) {
    auto chunk = std::move(st.held_chunks.front());
    st.held_chunks.pop_front();
    for (const auto& spec : chunk)
      st.in_flight.insert(spec.id());
    self->request(st.to.known_tasks, caf::infinite, submit_atom_v, std::move(chunk))
      .then([self](const std::vector<std::string>& refused) {
        for (const auto& id : refused)
          refuse(self, id);
      });
  }
}

// An all-or-nothing submit: refused whole, or every task enqueued under
// one batch whose replication can be awaited.
submit_receipt submit_all(facade_ptr self, std::vector<wire::TaskSpec> specs,
                          caf::timestamp accept_by) {
  auto& st = self->state;
  submit_receipt r;
  if (caf::make_timestamp() > accept_by)
    r.refused = "the node was too busy to take the submit in time";
  else if (st.awaiting_ack.size() + specs.size() > st.submit_window)
    r.refused = std::to_string(st.awaiting_ack.size())
                + " tasks of this node are not yet replicated and at most "
                + std::to_string(st.submit_window)
                + " may be (--submit-window): retry later";
  if (!r.refused.empty())
    return r;
  auto b = std::make_shared<facade_state::batch>();
  b->missing = specs.size();
  r.batch = st.next_batch++;
  if (b->missing > 0)
    st.batches.emplace(r.batch, b);
  r.ids = enqueue(self, std::move(specs), [self, b, n = r.batch](const std::string&) {
    return [self, b, n](const caf::error& e) {
      b->refused = b->refused || static_cast<bool>(e);
      if (--b->missing > 0)
        return;
      for (auto& w : b->waiters)
        w.deliver(!b->refused);
      // Kept for an await still to come unless one is here already.
      if (!b->waiters.empty())
        self->state.batches.erase(n);
    };
  });
  return r;
}

// Answers once every task of `batch` is replicated.
caf::result<bool> await_batch(facade_ptr self, std::uint64_t n) {
  auto& st = self->state;
  auto it = st.batches.find(n);
  if (it == st.batches.end())
    return true; // all replicated before anyone asked, or an empty batch
  auto b = it->second;
  if (b->missing == 0) {
    st.batches.erase(it);
    return !b->refused;
  }
  auto rp = self->make_response_promise<bool>();
  b->waiters.push_back(rp);
  return rp;
}

// Answers the long poll of `ticket` (already taken from end_waits).
template <class T>
void answer_wait(facade_ptr self, end_waits::ticket ticket, T&& value) {
  auto it = self->state.wait_answers.find(ticket);
  if (it == self->state.wait_answers.end())
    return;
  auto answer = std::move(it->second);
  self->state.wait_answers.erase(it);
  answer(std::forward<T>(value));
}

// Answers the waits whose task ended or whose time is up with the task's
// rows as known_tasks has them now (the owner too, which events lack).
void answer_waits(facade_ptr self, std::vector<end_waits::ticket> tickets,
                  const std::string& id) {
  if (tickets.empty())
    return;
  auto answer = [self, tickets](const auto& value) {
    for (auto t : tickets)
      answer_wait(self, t, value);
  };
  self->request(self->state.to.known_tasks, caf::infinite, tasks_atom_v,
                task_query::of(id))
    .then([answer](std::vector<task_row>& rows) { answer(rows); },
          [answer](caf::error& e) { answer(e); });
}

// Starts the wait of a ticket for task `id`: `answer` is told its rows
// when it ends or after `wait` ms, whichever comes first. Returns the
// ticket, or nullopt if too many waits are held (nobody will be told).
std::optional<end_waits::ticket> start_wait(facade_ptr self, const std::string& id,
                                            millis wait, rows_answer answer) {
  auto& st = self->state;
  auto ticket = st.waits.add(id);
  if (!ticket)
    return std::nullopt;
  st.wait_answers.emplace(*ticket, std::move(answer));
  self->delayed_send(self, std::chrono::milliseconds(wait), tick_atom_v,
                     std::uint64_t{*ticket});
  return ticket;
}

bool ended_or_unknown(const std::vector<task_row>& rows) {
  return rows.empty() || !rows.front().has_spec
         || is_terminal(rows.front().state.phase());
}

// A long poll of task `q.ids[0]`: answered at once if the task has ended
// or is not known, else when it ends or after `wait` ms.
caf::result<std::vector<task_row>> await_end(facade_ptr self, task_query q,
                                             millis wait) {
  auto& st = self->state;
  if (q.ids.size() != 1 || wait <= 0)
    return self->delegate(st.to.known_tasks, tasks_atom_v, std::move(q));
  auto rp = self->make_response_promise<std::vector<task_row>>();
  auto ticket = start_wait(self, q.ids.front(), wait,
                           [rp](caf::expected<std::vector<task_row>> rows) mutable {
                             if (rows)
                               rp.deliver(std::move(*rows));
                             else
                               rp.deliver(rows.error());
                           });
  if (!ticket) // too many polls wait: this one is answered now
    return self->delegate(st.to.known_tasks, tasks_atom_v, std::move(q));
  // It may have ended before: the replica knows. (The ticket is held
  // first, so an end that comes while this question is out is not missed.)
  self->request(st.to.known_tasks, caf::infinite, tasks_atom_v, std::move(q))
    .then([self, t = *ticket](std::vector<task_row>& rows) {
      if (ended_or_unknown(rows) && self->state.waits.take(t))
        answer_wait(self, t, std::move(rows));
    });
  return rp;
}

// The long polls of several tasks at once, with one deadline: tells
// `done` one row per id, in the order of `ids`, once each task ended or
// `wait` ms are over (an unknown task as a row without spec).
void await_ends(facade_ptr self, std::vector<std::string> ids, millis wait,
                std::function<void(std::vector<task_row>)> done) {
  struct gather {
    std::vector<std::string> ids;
    std::map<std::string, task_row> rows;
    std::set<std::string> missing;
    std::function<void(std::vector<task_row>)> done;

    void put(const std::string& id, const std::vector<task_row>& found) {
      if (missing.erase(id) == 0)
        return;
      task_row r;
      r.spec.set_id(id);
      rows.emplace(id, found.empty() ? r : found.front());
      if (!missing.empty())
        return;
      std::vector<task_row> out;
      out.reserve(ids.size());
      for (const auto& i : ids)
        out.push_back(rows[i]);
      done(std::move(out));
    }
  };
  auto g = std::make_shared<gather>();
  g->missing.insert(ids.begin(), ids.end());
  g->ids = std::move(ids);
  g->done = std::move(done);
  if (g->missing.empty()) {
    g->done({});
    return;
  }
  // Tickets first, as in await_end, then what the replica holds now.
  std::map<std::string, end_waits::ticket> tickets;
  if (wait > 0)
    for (const auto& id : g->missing)
      if (auto t = start_wait(self, id, wait,
                              [g, id](caf::expected<std::vector<task_row>> rows) {
                                g->put(id, rows ? *rows : std::vector<task_row>{});
                              }))
        tickets.emplace(id, *t);
  task_query q;
  q.ids.assign(g->missing.begin(), g->missing.end());
  auto now = [self, g, tickets](const std::vector<task_row>& all) {
    // One row per known id: a waited submit may name 1,000 tasks.
    std::map<std::string, const task_row*> by_id;
    for (const auto& r : all)
      by_id.emplace(r.spec.id(), &r);
    auto pending = g->missing;
    for (const auto& id : pending) {
      std::vector<task_row> rows;
      if (auto f = by_id.find(id); f != by_id.end())
        rows.push_back(*f->second);
      auto t = tickets.find(id);
      if (t == tickets.end()) // not waited for: as it is now
        g->put(id, rows);
      else if (ended_or_unknown(rows) && self->state.waits.take(t->second))
        answer_wait(self, t->second, rows);
    }
  };
  self->request(self->state.to.known_tasks, caf::infinite, tasks_atom_v, std::move(q))
    .then([now](std::vector<task_row>& all) { now(all); },
          [now](caf::error&) { now({}); });
}

// What a waited submit needs after its receipt (see replicated_queue.hpp):
// the batch's replication within `within` ms, then the ends of `ids`.
caf::result<submit_progress> await_progress(facade_ptr self, std::uint64_t batch,
                                            millis within,
                                            std::vector<std::string> ids,
                                            millis wait) {
  auto rp = self->make_response_promise<submit_progress>();
  // The facade asks itself: the bound is the request's timeout.
  auto me = caf::actor_cast<replicated_queue>(self);
  self->request(me, std::chrono::milliseconds(within), submit_atom_v, batch)
    .then(
      [self, rp, ids, wait](bool replicated) mutable {
        if (!replicated || ids.empty()) {
          rp.deliver(submit_progress{replicated, {}});
          return;
        }
        await_ends(self, std::move(ids), wait,
                   [rp](std::vector<task_row> rows) mutable {
                     rp.deliver(submit_progress{true, std::move(rows)});
                   });
      },
      [rp](caf::error&) mutable { rp.deliver(submit_progress{}); });
  return rp;
}

replicated_queue::behavior_type facade_fun(facade_ptr self,
                                           queue_actor_config cfg,
                                           broadcast_bridge bridge,
                                           membership members, executor exec) {
  auto& st = self->state;
  char inc[17];
  std::snprintf(inc, sizeof(inc), "%llx",
                static_cast<unsigned long long>(cfg.incarnation));
  st.id_prefix = cfg.node_id + "-" + inc + "-";
  st.submit_window = cfg.queue.submit_window;
  st.submit_chunk = cfg.queue.submit_chunk;
  st.submit_in_flight = cfg.queue.submit_in_flight;
  if (cfg.board)
    st.board = cfg.board;
  st.board->post_own(cfg.queue.runner.value_or(runner_capabilities{}));
  spawn_subsystems(self, cfg, bridge, members, exec);
  return {
    // -- what the subsystems send out --------------------------------------
    [self](const ev::batch& b) {
      world_out out{self};
      for (const auto& e : b.items)
        std::visit(out, e);
    },
    [self](const ev::acknowledged& e) { world_out{self}(e); },
    [self](const ev::task_changed& e) { world_out{self}(e); },
    // -- the user's operations ---------------------------------------------
    [self](subscribe_atom, task_listener& who) {
      self->state.listeners.push_back({std::move(who), false});
    },
    [self](subscribe_atom, task_listener& who, locks_atom) {
      self->state.listeners.push_back({std::move(who), true});
    },
    [self](submit_atom, wire::TaskSpec& spec) -> caf::result<std::string> {
      auto rp = self->make_response_promise<std::string>();
      std::vector<wire::TaskSpec> one{std::move(spec)};
      enqueue(self, std::move(one), [rp](const std::string& id) mutable -> ack_waiter {
        return [rp, id](const caf::error& e) mutable {
          if (e)
            rp.deliver(e);
          else
            rp.deliver(id);
        };
      });
      return rp;
    },
    [self](submit_atom, std::vector<wire::TaskSpec>& specs)
      -> caf::result<std::vector<std::string>> {
      // One answer for all: every id once all are replicated, or the
      // first error.
      struct pending {
        caf::typed_response_promise<std::vector<std::string>> rp;
        std::vector<std::string> ids;
        std::size_t missing = 0;
      };
      auto acc = std::make_shared<pending>();
      acc->rp = self->make_response_promise<std::vector<std::string>>();
      acc->missing = specs.size();
      acc->ids = enqueue(self, std::move(specs), [acc](const std::string&) -> ack_waiter {
        return [acc](const caf::error& e) {
          if (!acc->rp.pending())
            return;
          if (e)
            acc->rp.deliver(e);
          else if (--acc->missing == 0)
            acc->rp.deliver(acc->ids);
        };
      });
      if (acc->missing == 0)
        acc->rp.deliver(acc->ids);
      return acc->rp;
    },
    [self](submit_atom, std::vector<wire::TaskSpec>& specs,
           caf::timestamp accept_by) {
      return submit_all(self, std::move(specs), accept_by);
    },
    [self](submit_atom, std::uint64_t batch) { return await_batch(self, batch); },
    [self](submit_atom, std::uint64_t batch, millis within,
           std::vector<std::string>& ids, millis wait) {
      return await_progress(self, batch, within, std::move(ids), wait);
    },
    [self](remove_atom, const std::string& id) {
      return self->delegate(self->state.to.known_tasks, remove_atom_v, id);
    },
    [self](cancel_atom, const std::string& id) {
      return self->delegate(self->state.to.known_tasks, cancel_atom_v, id);
    },
    [self](kinds_atom, const runner_capabilities& r) {
      self->state.board->post_own(r);
      self->send(self->state.to.ready_queue, ev::runner_changed{r});
      self->send(self->state.to.communication, ev::runner_changed{r});
    },
    [self](drain_atom, bool on) {
      self->send(self->state.to.ranking, ev::drain{on});
      self->send(self->state.to.communication, ev::drain{on});
    },
    [self](tasks_atom, const task_query& q) {
      return self->delegate(self->state.to.known_tasks, tasks_atom_v, q);
    },
    [self](tasks_atom, task_query& q, millis wait) {
      return await_end(self, std::move(q), wait);
    },
    [self](tick_atom, std::uint64_t ticket) {
      // Time is up: what the task is now (unless its end answered it).
      if (auto id = self->state.waits.take(ticket))
        answer_waits(self, {ticket}, *id);
    },
    // From the board: an answer at once, whatever the mailboxes hold.
    [self](tasks_atom, stats_atom) { return self->state.board->counts(); },
    [self](stats_atom) { return self->state.board->total(); },
    [self](runners_atom) {
      return self->state.board->runners();
    },
  };
}

} // namespace

replicated_queue spawn_replicated_queue(caf::actor_system& sys,
                                        queue_actor_config cfg,
                                        broadcast_bridge bridge,
                                        membership members, executor exec) {
  return sys.spawn(facade_fun, std::move(cfg), bridge, members, exec);
}

} // namespace dice
