#include "known_tasks/known_tasks_machine.hpp"

#include <algorithm>
#include <utility>

#include "common/defaults.hpp"
#include "vocabulary/queue_messages.hpp"
#include "known_tasks/id_order.hpp"

namespace dice {

known_tasks_machine::known_tasks_machine(std::string id, queue_config cfg)
  : id_(std::move(id)), cfg_(std::move(cfg)) {
}

bool known_tasks_machine::learn(const wire::TaskSpec& spec,
                                ev::events& out) {
  if (!tasks_.learn_spec(spec))
    return false;
  specs_.erase(spec.id()); // a replaced spec is shared anew
  out.push_back(ev::spec_learned{spec.id()});
  return true;
}

void known_tasks_machine::publish(const std::string& task_id,
                                  ev::events& out) {
  announce(task_id, out);
  out.push_back(ev::replica_digest{tasks_.digest()});
}

void known_tasks_machine::announce(const std::string& task_id,
                                   ev::events& out) {
  const auto* task = tasks_.find(task_id);
  if (sink_ != nullptr)
    sink_->record(task_id, *task);
  std::shared_ptr<const wire::TaskSpec> spec;
  if (task->has_spec) {
    auto& shared = specs_[task_id];
    if (!shared)
      shared = std::make_shared<const wire::TaskSpec>(task->spec);
    spec = shared;
    // Ended tasks rarely change again: no second copy kept for them.
    if (is_terminal(task->state.phase()))
      specs_.erase(task_id);
  }
  out.push_back(ev::task_changed{task_id, std::move(spec), task->state});
}

void known_tasks_machine::restore(const std::vector<wire::TakeMyTask>& records,
                                  ev::events& out) {
  std::set<std::string> changed;
  for (const auto& r : records) {
    const auto& task_id = r.spec().id();
    if (task_id.empty())
      continue;
    bool news = !r.spec_unknown() && tasks_.learn_spec(r.spec());
    news |= tasks_.merge_state(task_id, r.state());
    if (news)
      changed.insert(task_id);
  }
  for (const auto& task_id : changed) {
    if (tasks_.has_spec(task_id))
      out.push_back(ev::spec_learned{task_id});
    announce(task_id, out);
  }
  if (!changed.empty())
    out.push_back(ev::replica_digest{tasks_.digest()});
}

void known_tasks_machine::on(const ev::merge_message& e, millis,
                             ev::events& out) {
  const auto& m = e.message;
  auto task_id = task_id_of(m);
  if (task_id.empty())
    return;
  bool changed = false;
  if (m.has_enqueue()) {
    changed = learn(m.enqueue().spec(), out);
    changed |= tasks_.merge_state(task_id, initial_state());
  } else if (auto state = state_of(m)) {
    changed = tasks_.merge_state(task_id, *state);
    const auto* task = tasks_.find(task_id);
    // The sender still thinks the task is ready or running, but it ended:
    // tell it (ALREADY_FINISHED_TASK) before it executes the task again.
    // A RUNNING heartbeat of the very claim that ended the task was merely
    // overtaken by its end: its sender knows.
    bool overtaken = m.has_info() && m.info().phase() == wire::RUNNING
                     && m.info().attempt() == task->state.attempt()
                     && m.info().claim().node_id()
                          == task->state.claim().node_id();
    if (e.from_peer && !overtaken && !is_terminal(state->phase())
        && task->has_spec && is_terminal(task->state.phase()))
      out.push_back(ev::stale_seen{task_id});
    if (m.has_info() && m.info().phase() == wire::RUNNING)
      out.push_back(ev::running_heard{task_id, m.info().attempt(),
                                      m.info().claim().node_id()});
  }
  if (!tasks_.has_spec(task_id))
    out.push_back(ev::unknown_seen{task_id});
  if (changed)
    publish(task_id, out);
  // After the change: ranking judges the claim against the merged state;
  // our own claim that changed nothing (a better claim or a later state
  // was here first) learns so from this too, as no task_changed follows.
  if (m.has_dequeue() && (e.from_peer || !changed))
    out.push_back(ev::claim_heard{m.dequeue(), tasks_.find(task_id)->state});
}

void known_tasks_machine::on(const ev::merge_task& e, millis,
                             ev::events& out) {
  const auto& task_id = e.spec.id();
  if (task_id.empty())
    return;
  bool changed = !e.spec_unknown && learn(e.spec, out);
  changed |= tasks_.merge_state(task_id, e.state);
  if (changed)
    publish(task_id, out);
}

void known_tasks_machine::on(const ev::snapshot_wanted& e, millis,
                             ev::events& out) {
  // Tasks in id order after `after`, in chunks of one wire budget each, up
  // to sync_reply_bytes per request: every datagram stays within a frame,
  // and a catch-up still moves tens of kilobytes per round trip. Each chunk
  // names the id it continues after, so the asker resumes from the last
  // one it got.
  const auto& all = tasks_.tasks();
  auto next = all.upper_bound(e.after);
  std::string after = e.after;
  std::vector<wire::Message> chunks;
  std::size_t total = 0;
  do {
    wire::Message reply;
    auto* r = reply.mutable_sync_reply();
    // The asker raises its vector to the first chunk's alone; an empty
    // chunk carries it too, or it would not read as a snapshot.
    if (after.empty() || next == all.end())
      e.versions.to_wire(r->mutable_snapshot_versions());
    r->set_snapshot_after(after);
    // The flags (more, continued) and each task's tag and length.
    std::size_t bytes = r->ByteSizeLong() + 4;
    for (; next != all.end(); ++next) {
      const auto& [task_id, task] = *next;
      wire::TakeMyTask t;
      if (task.has_spec) {
        *t.mutable_spec() = task.spec;
      } else {
        t.mutable_spec()->set_id(task_id);
        t.set_spec_unknown(true);
      }
      *t.mutable_state() = task.state;
      auto size = t.ByteSizeLong() + 4;
      if (bytes + size > cfg_.wire_budget && r->snapshot_size() > 0)
        break;
      bytes += size;
      *r->add_snapshot() = std::move(t);
    }
    r->set_snapshot_more(next != all.end());
    if (r->snapshot_size() > 0)
      after = r->snapshot(r->snapshot_size() - 1).spec().id();
    total += bytes;
    chunks.push_back(std::move(reply));
  } while (next != all.end() && total < cfg_.sync_reply_bytes);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    chunks[i].mutable_sync_reply()->set_continued(i + 1 < chunks.size());
    out.push_back(ev::send_to{e.peer, std::move(chunks[i])});
  }
  ++counters_.snapshots_sent;
  counters_.sync_replies += chunks.size();
}

void known_tasks_machine::on(const ev::question_heard& e, millis,
                             ev::events& out) {
  if (tasks_.has_spec(e.task_id))
    out.push_back(ev::known_question{e.task_id});
}

void known_tasks_machine::on(const ev::answer_due& e, millis,
                             ev::events& out) {
  const auto* task = tasks_.find(e.task_id);
  if (task == nullptr || !task->has_spec)
    return;
  if (is_terminal(task->state.phase()))
    out.push_back(ev::broadcast{make_already_finished(task->spec, task->state)});
  else
    out.push_back(ev::broadcast{make_take_my_task(task->spec, task->state)});
}

void known_tasks_machine::on(const ev::member_recovered& e, millis,
                             ev::events& out) {
  if (!e.announce)
    return; // every node recovers for itself: nothing to announce
  // One Recovery per wire budget: each names the dead node, so any one of
  // them alone is a whole announcement of the ids it lists.
  std::vector<wire::Message> parts;
  auto start = [&] {
    wire::Message m;
    m.mutable_recovery()->set_node_id(e.node);
    parts.push_back(std::move(m));
    return parts.back().recovery().ByteSizeLong();
  };
  std::size_t bytes = start();
  auto add = [&](const std::string& task_id, bool adopted) {
    auto size = task_id.size() + 3;
    auto* r = parts.back().mutable_recovery();
    if (bytes + size > cfg_.wire_budget
        && r->requeued_size() + r->adopted_size() > 0) {
      bytes = start();
      r = parts.back().mutable_recovery();
    }
    bytes += size;
    if (adopted)
      r->add_adopted(task_id);
    else
      r->add_requeued(task_id);
  };
  for (const auto& task_id : e.requeued)
    add(task_id, false);
  // The dead node can no longer answer for what it enqueued: the
  // coordinator becomes the enqueuer of record of its unfinished tasks.
  std::size_t adopted = 0;
  for (const auto& [task_id, task] : tasks_.tasks()) {
    if (adopted >= cfg_.recovery_adopt_limit)
      break;
    if (task.has_spec && task.spec.enqueuer() == e.node
        && !is_terminal(task.state.phase()) && owner_of(task_id) == e.node) {
      adopted_by_[task_id] = id_;
      add(task_id, true);
      ++adopted;
      ++counters_.adopted;
    }
  }
  for (auto& m : parts)
    out.push_back(ev::broadcast{std::move(m)});
}

void known_tasks_machine::on(const ev::tasks_adopted& e, millis,
                             ev::events&) {
  for (const auto& task_id : e.task_ids)
    if (!task_id.empty())
      adopted_by_[task_id] = e.by;
}

std::string known_tasks_machine::owner_of(const std::string& task_id) const {
  if (auto it = adopted_by_.find(task_id); it != adopted_by_.end())
    return it->second;
  const auto* task = tasks_.find(task_id);
  return task != nullptr && task->has_spec ? task->spec.enqueuer() : "";
}

// -- user operations ----------------------------------------------------------

bool known_tasks_machine::submit(wire::TaskSpec spec, millis now,
                                 ev::events& out) {
  // submitted_: the ENQUEUE may still be on its way back to this replica.
  if (spec.id().empty() || tasks_.has_spec(spec.id())
      || !submitted_.insert(spec.id()).second)
    return false;
  if (spec.enqueuer().empty())
    spec.set_enqueuer(id_);
  if (spec.enqueue_time_ms() == 0)
    spec.set_enqueue_time_ms(now);
  wire::OpId none;
  out.push_back(ev::originate{make_enqueue(spec, none), true});
  return true;
}

bool known_tasks_machine::remove(const std::string& task_id, millis,
                                 ev::events& out) {
  if (task_id.empty())
    return false;
  const auto* task = tasks_.find(task_id);
  if (task != nullptr && task->state.phase() == wire::REMOVED)
    return false;
  wire::OpId none;
  out.push_back(ev::originate{make_remove(task_id, none)});
  return true;
}

bool known_tasks_machine::cancel(const std::string& task_id, millis now,
                                 ev::events& out) {
  const auto* task = tasks_.find(task_id);
  if (task == nullptr || is_terminal(task->state.phase()))
    return false;
  wire::TaskState s;
  s.set_phase(wire::CANCELED);
  s.set_attempt(task->state.attempt());
  s.set_reason("canceled by " + id_);
  s.set_finished_time_ms(now);
  wire::OpId none;
  out.push_back(ev::originate{make_info(task_id, s, now, &none)});
  return true;
}

// -- queries ------------------------------------------------------------------

task_row known_tasks_machine::row(const std::string& task_id,
                                  const known_task& t) const {
  task_row r{t.has_spec, t.spec, t.state, owner_of(task_id)};
  if (!t.has_spec)
    r.spec.set_id(task_id);
  return r;
}

std::vector<task_row> known_tasks_machine::query(const task_query& q) const {
  std::vector<task_row> rows;
  auto wanted = [&](const known_task& t) {
    // A page counts only tasks the API can show (their spec known).
    return (!q.phase || t.state.phase() == *q.phase)
           && (!(q.kind || q.limit) || t.has_spec)
           && (!q.kind || t.spec.kind() == *q.kind)
           && (!q.node
               || (t.state.has_claim() && t.state.claim().node_id() == *q.node));
  };
  if (q.ids.empty()) {
    // A page: the matching ids after `after`, the first `limit` of them in
    // id_before order (a partial sort: a page costs a pass, not a sort).
    using entry = const std::pair<const std::string, known_task>*;
    std::vector<entry> hits;
    for (const auto& e : tasks_.tasks())
      if (wanted(e.second) && (!q.after || id_before(*q.after, e.first)))
        hits.push_back(&e);
    auto before = [](entry a, entry b) { return id_before(a->first, b->first); };
    auto n = std::min(hits.size(), q.limit.value_or(hits.size()));
    std::partial_sort(hits.begin(), hits.begin() + n, hits.end(), before);
    rows.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      rows.push_back(row(hits[i]->first, hits[i]->second));
    return rows;
  }
  rows.reserve(q.ids.size());
  for (const auto& id : q.ids)
    if (const auto* t = tasks_.find(id); t != nullptr && wanted(*t))
      rows.push_back(row(id, *t));
  return rows;
}

known_tasks_machine make_known_tasks_machine(const machine_config& c) {
  return known_tasks_machine(c.node_id, c.queue);
}

} // namespace dice
