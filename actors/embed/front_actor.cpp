#include "embed/front_actor.hpp"

#include <chrono>
#include <map>
#include <set>
#include <utility>
#include <variant>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "embed/event_of.hpp"
#include "embed/front_checks.hpp"
#include "embed/subscribers.hpp"
#include "http_api/schedule_json.hpp"
#include "http_api/workflow_json.hpp"

namespace dice::embed {

namespace {

struct front_state {
  front_config cfg;
  front_targets to;
  task_ends ends;
  std::map<task_ends::ticket, caf::typed_response_promise<task_event>> awaits;
  subscribers<task_observer> task_watchers;       // topic "" only
  subscribers<message_observer> message_watchers; // by topic
  // Actors monitored: when one stops, its awaits and subscriptions end.
  std::set<caf::actor_id> watched;
  static inline const char* name = "dice_front";

  millis now() const { return cfg.clock ? cfg.clock() : wall_clock_ms(); }

  // Stopped with awaits pending: their askers learn it now.
  ~front_state() {
    for (auto& [ticket, rp] : awaits)
      rp.deliver(caf::make_error(caf::sec::request_receiver_down,
                                 "the node stopped before the task ended"));
  }
};

using front_ptr = front_actor::stateful_pointer<front_state>;

// Monitors `who` once; its id owns what it asked for.
caf::actor_id watch(front_ptr self, const caf::strong_actor_ptr& who) {
  if (!who)
    return 0;
  if (self->state.watched.insert(who->id()).second)
    self->monitor(who);
  return who->id();
}

template <class Handle>
caf::actor_id watch_handle(front_ptr self, const Handle& who) {
  return watch(self, caf::actor_cast<caf::strong_actor_ptr>(who));
}

// An event as learnt: the awaits it ends are answered.
void learn(front_ptr self, const task_event& ev) {
  auto& st = self->state;
  for (auto t : st.ends.learn(ev)) {
    auto it = st.awaits.find(t);
    if (it == st.awaits.end())
      continue;
    it->second.deliver(ev);
    st.awaits.erase(it);
  }
}

// Enqueues tasks all or nothing, so a full submit window answers busy,
// then answers once another replica holds them: with `answer`, or the
// first task's id. `keyed`: ids a key gave, which a replica refuses only
// because another submit of that key came first.
void enqueue(front_ptr self, std::vector<wire::TaskSpec> specs, bool keyed,
             std::string answer, caf::typed_response_promise<std::string> rp) {
  auto& st = self->state;
  auto accept = std::chrono::milliseconds(st.cfg.accept_ms);
  self
    ->request(st.to.queue, accept + std::chrono::milliseconds(st.cfg.answer_margin_ms),
              dice::submit_atom_v, std::move(specs), caf::make_timestamp() + accept)
    .then(
      [self, rp, keyed, answer](const submit_receipt& r) mutable {
        if (!r.refused.empty() || r.ids.empty()) {
          rp.deliver(make_error(refusal::busy, "no task enqueued: " + r.refused));
          return;
        }
        auto id = answer.empty() ? r.ids.front() : answer;
        self->request(self->state.to.queue, caf::infinite, dice::submit_atom_v, r.batch)
          .then(
            [rp, id, keyed](bool replicated) mutable {
              if (replicated || keyed)
                rp.deliver(id);
              else
                rp.deliver(make_error(refusal::invalid,
                                      "the replica refused task '" + id + "'"));
            },
            [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
      },
      [self, rp](caf::error& e) mutable {
        rp.deliver(make_error(refusal::busy, "node busy, no task enqueued: "
                                               + self->system().render(e)));
      });
}

void enqueue(front_ptr self, wire::TaskSpec spec,
             caf::typed_response_promise<std::string> rp) {
  // A schedule's id is its name's, as a key's is the key's.
  bool keyed = !spec.key().empty() || spec.has_schedule();
  enqueue(self, {std::move(spec)}, keyed, "", rp);
}

// The first of `tasks` that neither this node runs (its kinds) nor a live
// member, as `runners` advertise; nullptr if each has a runner. With no
// runners, whether this node runs them all.
const wire::TaskSpec* first_without_runner(const front_state& st,
                                           const std::vector<runner_capabilities>& runners,
                                           const std::vector<wire::TaskSpec>& tasks) {
  for (const auto& t : tasks)
    if (!st.cfg.runs(t.kind()) && !anyone_runs(runners, t))
      return &t;
  return nullptr;
}

// Calls `next` once this node or a live member runs each of `tasks`:
// the members are asked only for kinds this node does not run. If one
// has no runner, `rp` answers unknown_kind, naming its step if it has one.
template <class Next>
void when_run(front_ptr self, std::vector<wire::TaskSpec> tasks,
              caf::typed_response_promise<std::string> rp, Next next) {
  if (!first_without_runner(self->state, {}, tasks)) {
    next();
    return;
  }
  self->request(self->state.to.queue, caf::infinite, dice::runners_atom_v)
    .then(
      [self, rp, tasks = std::move(tasks),
       next](const std::vector<runner_capabilities>& runners) mutable {
        auto* t = first_without_runner(self->state, runners, tasks);
        if (!t) {
          next();
          return;
        }
        rp.deliver(make_error(refusal::unknown_kind,
                              (t->step().empty() ? "" : "step '" + t->step() + "': ")
                                + "unknown kind '" + t->kind() + "'"));
      },
      [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
}

void enqueue_once(front_ptr self, wire::TaskSpec spec,
                  caf::typed_response_promise<std::string> rp);

caf::result<std::string> submit_workflow(front_ptr self, const std::string& json) {
  std::string err;
  auto w = parse_workflow(json, {}, fresh_workflow_id(), err, self->state.now());
  if (!w)
    return make_error(refusal::invalid, err);
  auto rp = self->make_response_promise<std::string>();
  auto specs = w->specs;
  when_run(self, std::move(specs), rp, [self, rp, w = std::move(*w)]() mutable {
    enqueue(self, std::move(w.specs), true, w.id, rp);
  });
  return rp;
}

caf::result<std::string> add_schedule(front_ptr self, const std::string& json) {
  std::string err;
  auto record = parse_schedule(json, {}, self->state.now(), err);
  if (!record)
    return make_error(refusal::invalid, err);
  auto rp = self->make_response_promise<std::string>();
  std::vector<wire::TaskSpec> task{record->schedule().task()};
  when_run(self, std::move(task), rp,
           [self, rp, record = std::move(*record)]() mutable {
             // Its id names the schedule: held already, that is the answer.
             enqueue_once(self, std::move(record), rp);
           });
  return rp;
}

caf::result<std::string> submit(front_ptr self, const task& t) {
  auto& st = self->state;
  auto checked = task_spec_of(t, st.now());
  if (auto* p = std::get_if<problem>(&checked))
    return make_error(p->code, p->reason);
  auto spec = std::get<wire::TaskSpec>(std::move(checked));
  auto rp = self->make_response_promise<std::string>();
  std::vector<wire::TaskSpec> tasks{spec};
  when_run(self, std::move(tasks), rp, [self, rp, spec]() mutable {
    enqueue_once(self, std::move(spec), rp);
  });
  return rp;
}

// Enqueues the task, or with a key this replica holds already, answers
// that task's id.
void enqueue_once(front_ptr self, wire::TaskSpec spec,
                  caf::typed_response_promise<std::string> rp) {
  auto& st = self->state;
  if (spec.key().empty() && !spec.has_schedule()) {
    enqueue(self, std::move(spec), rp);
    return;
  }
  // A key names its task: held by this replica already, that is the answer.
  self->request(st.to.queue, caf::infinite, dice::tasks_atom_v, task_query::of(spec.id()))
    .then(
      [self, rp, spec](const std::vector<task_row>& rows) mutable {
        if (!rows.empty() && rows.front().has_spec)
          rp.deliver(rows.front().spec.id());
        else
          enqueue(self, spec, rp);
      },
      [self, rp, spec](caf::error&) mutable { enqueue(self, spec, rp); });
}

caf::result<task_event> await(front_ptr self, const std::string& id) {
  auto& st = self->state;
  if (auto end = st.ends.end_of(id))
    return std::move(*end);
  auto ticket = st.ends.wait(id, watch(self, self->current_sender()));
  if (!ticket)
    return make_error(refusal::busy, std::to_string(st.ends.waiting())
                                       + " awaits are pending; retry later");
  auto rp = self->make_response_promise<task_event>();
  st.awaits.emplace(*ticket, rp);
  // It may have ended before the front heard of it: the replica knows.
  self->request(st.to.queue, caf::infinite, dice::tasks_atom_v, task_query::of(id))
    .then(
      [self](const std::vector<task_row>& rows) {
        if (rows.empty() || !rows.front().has_spec)
          return;
        auto ev = task_event_of(rows.front());
        // An end heard meanwhile is as new as this one, or newer.
        if (ev.ended() && !self->state.ends.end_of(ev.id))
          learn(self, ev);
      },
      [](caf::error&) {}); // the await stays: the end may still come
  return rp;
}

caf::result<std::optional<task_event>> query(front_ptr self, const std::string& id) {
  auto rp = self->make_response_promise<std::optional<task_event>>();
  self->request(self->state.to.queue, caf::infinite, dice::tasks_atom_v, task_query::of(id))
    .then(
      [rp](const std::vector<task_row>& rows) mutable {
        std::optional<task_event> out;
        if (!rows.empty() && rows.front().has_spec)
          out = task_event_of(rows.front());
        rp.deliver(std::move(out));
      },
      [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
  return rp;
}

caf::result<message> publish(front_ptr self, const std::string& topic,
                             const std::string& data) {
  if (auto p = publish_problem(topic, data))
    return make_error(p->code, p->reason);
  auto rp = self->make_response_promise<message>();
  self->request(self->state.to.events, caf::infinite, dice::publish_atom_v, topic, data)
    .then([rp](const causal_delivery& d) mutable { rp.deliver(message_of(d)); },
          [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
  return rp;
}

front_actor::behavior_type front_fun(front_ptr self, front_config cfg,
                                     front_targets to) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.to = std::move(to);
  st.ends = task_ends{st.cfg.ended_limit, st.cfg.waiting_limit};
  self->send(st.to.queue, dice::subscribe_atom_v, caf::actor_cast<task_listener>(self));
  self->send(st.to.events, dice::subscribe_atom_v, caf::actor_cast<causal_listener>(self));
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& st = self->state;
    auto by = dm.source.id();
    st.watched.erase(by);
    for (auto t : st.ends.drop(by))
      st.awaits.erase(t); // its asker is gone: nobody to answer
    st.task_watchers.drop(by);
    st.message_watchers.drop(by);
  });
  return {
    [self](submit_atom, const task& t) { return submit(self, t); },
    [self](workflow_atom, const std::string& json) { return submit_workflow(self, json); },
    [self](schedule_atom, const std::string& json) { return add_schedule(self, json); },
    [self](await_atom, const std::string& id) { return await(self, id); },
    [self](query_atom, const std::string& id) { return query(self, id); },
    [self](cancel_atom, const std::string& id) {
      return self->delegate(self->state.to.queue, dice::cancel_atom_v, id);
    },
    [self](remove_atom, const std::string& id) {
      return self->delegate(self->state.to.queue, dice::remove_atom_v, id);
    },
    [self](subscribe_atom, task_observer& who) {
      if (!who)
        return;
      auto by = watch_handle(self, who);
      self->state.task_watchers.add(by, "", std::move(who));
    },
    [self](unsubscribe_atom, const task_observer& who) {
      if (who)
        self->state.task_watchers.remove(who.id(), "");
    },
    [self](subscribe_atom, const std::string& topic, message_observer& who) {
      if (!who)
        return;
      auto by = watch_handle(self, who);
      self->state.message_watchers.add(by, topic, std::move(who));
    },
    [self](unsubscribe_atom, const std::string& topic, const message_observer& who) {
      if (who)
        self->state.message_watchers.remove(who.id(), topic);
    },
    [self](publish_atom, const std::string& topic, const std::string& data) {
      return publish(self, topic, data);
    },
    [self](evaluate_atom, const std::string& path,
           const evaluation_options& opts) -> caf::result<std::string> {
      if (!self->state.to.evaluations)
        return make_error(refusal::invalid, "this node runs no evaluations");
      return self->delegate(self->state.to.evaluations, evaluate_atom_v, path, opts);
    },
    // -- what the node's actors tell ------------------------------------------
    [self](dice::task_event_atom, const task_row& r) {
      auto ev = task_event_of(r);
      // Observers first: one that also awaits hears the end before the answer.
      for (auto& who : self->state.task_watchers.match(""))
        self->send(who, ev);
      learn(self, ev);
    },
    [self](dice::causal_atom, const causal_delivery& d) {
      auto m = message_of(d);
      for (auto& who : self->state.message_watchers.match(m.topic))
        self->send(who, m);
    },
  };
}

} // namespace

front_actor spawn_front(caf::actor_system& sys, front_config cfg, front_targets to) {
  return sys.spawn(front_fun, std::move(cfg), std::move(to));
}

} // namespace dice::embed
