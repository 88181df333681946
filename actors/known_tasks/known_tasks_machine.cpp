#include "known_tasks/known_tasks_machine.hpp"

#include <algorithm>
#include <utility>

#include "common/defaults.hpp"
#include "common/hashes.hpp"
#include "vocabulary/queue_messages.hpp"
#include "known_tasks/id_order.hpp"
#include "known_tasks/parents.hpp"

namespace dice {

known_tasks_machine::known_tasks_machine(std::string id, std::string origin,
                                         queue_config cfg)
  : id_(std::move(id)), cfg_(std::move(cfg)),
    ticker_(id_, cfg_.schedule_stagger_ms, cfg_.schedule_late_ms,
            cfg_.restore_hold_ms),
    origin_(std::move(origin)) {
}

bool known_tasks_machine::learn(const wire::TaskSpec& spec,
                                ev::events& out) {
  if (!tasks_.learn_spec(spec))
    return false;
  specs_.erase(spec.id()); // a replaced spec is shared anew
  out.push_back(ev::spec_learned{spec.id()});
  return true;
}

void known_tasks_machine::publish(const std::string& task_id, millis now,
                                  ev::events& out) {
  announce(task_id, now, out);
  out.push_back(ev::replica_digest{tasks_.digest()});
}

void known_tasks_machine::announce(const std::string& task_id, millis now,
                                   ev::events& out) {
  const auto* task = tasks_.find(task_id);
  if (sink_ != nullptr)
    sink_->record(task_id, *task);
  bool ended = is_terminal(task->state.phase());
  if (task->has_spec && task->spec.after_size() > 0)
    follow_parents(task->spec, ended, now);
  if (task->has_spec && task->spec.has_schedule()) {
    if (ended)
      ticker_.remove(task->spec.schedule().name());
    else
      ticker_.add(task->spec.schedule(), now);
  }
  if (task->has_spec && !task->spec.scheduled_by().empty())
    ticker_.seen(task->spec.scheduled_by(), task->spec.tick_ms());
  schedule_forget(task_id, *task, now);
  tell(task_id, now, out);
  // A parent that ended: its children may run now, or end.
  if (ended && dependants_.any(task_id)) {
    auto children = dependants_.of(task_id);
    for (const auto& child : children) {
      const auto* c = tasks_.find(child);
      if (c != nullptr && judge_parents(c->spec, tasks_).what
                            != parents_verdict::wait) {
        specs_.erase(child);
        tell(child, now, out);
      }
    }
  }
}

void known_tasks_machine::tell(const std::string& task_id, millis now,
                               ev::events& out) {
  const auto* task = tasks_.find(task_id);
  std::shared_ptr<const wire::TaskSpec> spec;
  if (task->has_spec) {
    auto& shared = specs_[task_id];
    if (!shared)
      shared = spec_with_inputs(task_id, *task, now, out);
    spec = shared;
    // Ended tasks rarely change again: no second copy kept for them.
    if (is_terminal(task->state.phase()))
      specs_.erase(task_id);
  }
  out.push_back(ev::task_changed{task_id, std::move(spec), task->state});
}

std::shared_ptr<const wire::TaskSpec>
known_tasks_machine::spec_with_inputs(const std::string& task_id,
                                      const known_task& t, millis now,
                                      ev::events& out) {
  if (t.spec.after_size() == 0 || is_terminal(t.state.phase()))
    return std::make_shared<const wire::TaskSpec>(t.spec);
  auto v = judge_parents(t.spec, tasks_);
  if (v.what == parents_verdict::cancel)
    end_for_parent(task_id, t, v.reason, now, out);
  if (v.what != parents_verdict::run)
    return std::make_shared<const wire::TaskSpec>(t.spec);
  // Only here, never on the wire: the inputs make the task claimable.
  auto spec = std::make_shared<wire::TaskSpec>(t.spec);
  for (auto& in : v.inputs)
    *spec->add_inputs() = std::move(in);
  return spec;
}

void known_tasks_machine::follow_parents(const wire::TaskSpec& child,
                                         bool ended, millis now) {
  if (!ended) {
    dependants_.add(child);
    return;
  }
  dependants_.remove(child);
  parent_cancels_.erase(child.id());
  drop_orphan(child.id());
  // A parent kept for its children is forgotten after the last one ends.
  for (const auto& parent : child.after())
    if (const auto* p = tasks_.find(parent); p != nullptr)
      schedule_forget(parent, *p, now);
}

void known_tasks_machine::end_for_parent(const std::string& task_id,
                                         const known_task& t,
                                         const std::string& reason, millis now,
                                         ev::events& out) {
  // One node says so for all: the node answering for the task (its
  // enqueuer, or the coordinator that adopted it), once. The others wait
  // for it, but not forever (cancel_orphans).
  if (owner_of(task_id) != id_) {
    auto at = now + orphan_cancel_ms();
    if (orphan_at_.emplace(task_id, at).second)
      orphans_due_.emplace(at, task_id);
    return;
  }
  if (!parent_cancels_.insert(task_id).second)
    return;
  originate_end(task_id, t.state.attempt(), reason, now, out);
  ++counters_.parent_cancels;
}

millis known_tasks_machine::orphan_cancel_ms() const {
  // A dead owner is declared dead and its tasks adopted within about one
  // running timeout; twice that, and nobody is going to.
  return 2 * cfg_.running_timeout_ms;
}

void known_tasks_machine::cancel_orphans(millis now, ev::events& out) {
  // The owner may be gone for good: dead before the coordinator that
  // recovered it knew of the task (which it then never adopts), or an
  // adopter that died in turn (a recovery adopts only the dead node's own
  // tasks). Without this, its child would wait forever.
  while (!orphans_due_.empty() && orphans_due_.begin()->first <= now) {
    auto task_id = orphans_due_.begin()->second;
    drop_orphan(task_id);
    const auto* t = tasks_.find(task_id);
    if (t == nullptr || !t->has_spec || is_terminal(t->state.phase()))
      continue;
    auto v = judge_parents(t->spec, tasks_);
    if (v.what == parents_verdict::cancel
        && parent_cancels_.insert(task_id).second) {
      originate_end(task_id, t->state.attempt(), v.reason, now, out);
      ++counters_.parent_cancels;
    }
  }
}

void known_tasks_machine::drop_orphan(const std::string& task_id) {
  if (auto it = orphan_at_.find(task_id); it != orphan_at_.end()) {
    orphans_due_.erase({it->second, task_id});
    orphan_at_.erase(it);
  }
}

void known_tasks_machine::restore(const std::vector<wire::TakeMyTask>& records,
                                  millis now, ev::events& out) {
  // What was forgotten first: a task's records before its forgetting are
  // in the file too.
  for (const auto& r : records)
    forgotten_.merge(r.forgotten());
  std::set<std::string> changed;
  for (const auto& r : records) {
    const auto& task_id = r.spec().id();
    if (task_id.empty()
        || (!r.spec_unknown() && r.spec().has_created()
            && forgotten_.contains(r.spec().created())))
      continue;
    bool news = !r.spec_unknown() && tasks_.learn_spec(r.spec());
    news |= tasks_.merge_state(task_id, r.state());
    if (news)
      changed.insert(task_id);
  }
  for (const auto& task_id : changed) {
    if (tasks_.has_spec(task_id))
      out.push_back(ev::spec_learned{task_id});
    announce(task_id, now, out);
  }
  if (!changed.empty())
    out.push_back(ev::replica_digest{tasks_.digest()});
  for (const auto& task_id : changed)
    if (!is_terminal(tasks_.find(task_id)->state.phase())) {
      out.push_back(ev::replica_restored{now + cfg_.restore_hold_ms});
      break;
    }
}

namespace {

// The spec a message carries whole, if any.
const wire::TaskSpec* spec_in(const wire::Message& m) {
  if (m.has_enqueue())
    return &m.enqueue().spec();
  if (m.has_take_my_task() && !m.take_my_task().spec_unknown())
    return &m.take_my_task().spec();
  if (m.has_already_finished_task() && m.already_finished_task().has_spec())
    return &m.already_finished_task().spec();
  return nullptr;
}

} // namespace

bool known_tasks_machine::refused(const std::string& task_id,
                                  const wire::TaskSpec* spec, millis now,
                                  ev::events& out) {
  bool by_number = spec != nullptr && spec->has_created()
                   && forgotten_.contains(spec->created());
  bool gone = by_number
              || (spec == nullptr && recent_.count(task_id) > 0
                  && tasks_.find(task_id) == nullptr);
  if (!gone)
    return false;
  ++counters_.forgotten_refused;
  // A spec-less entry of that id, made by a message that came after the
  // id left the recent list, is the forgotten task too: it goes, and the
  // id is recent again.
  if (by_number) {
    if (const auto* t = tasks_.find(task_id); t != nullptr && !t->has_spec) {
      forget(task_id, now, out);
      out.push_back(ev::replica_digest{tasks_.digest()});
    } else {
      note_recent(task_id, now);
    }
  }
  return true;
}

void known_tasks_machine::on(const ev::merge_message& e, millis now,
                             ev::events& out) {
  const auto& m = e.message;
  auto task_id = task_id_of(m);
  if (task_id.empty() || refused(task_id, spec_in(m), now, out))
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
    bool ended = !overtaken && !is_terminal(state->phase())
                 && is_terminal(task->state.phase());
    // The sender claims what another claim holds (the DEQUEUE that took
    // the task did not reach it): tell it (TAKE_MY_TASK, with the winning
    // claim) before its claim window ends, or it runs the task too.
    bool outclaimed = m.has_dequeue() && task->state.phase() == wire::RUNNING
                      && task->state.attempt() >= m.dequeue().attempt()
                      && task->state.claim().node_id()
                           != m.dequeue().claim().node_id();
    if (e.from_peer && task->has_spec && (ended || outclaimed))
      tell_behind(*task, witness_of(m), out);
    if (m.has_info() && m.info().phase() == wire::RUNNING)
      out.push_back(ev::running_heard{task_id, m.info().attempt(),
                                      m.info().claim().node_id()});
  }
  if (!tasks_.has_spec(task_id)) {
    auto witness = witness_of(m);
    out.push_back(ev::unknown_seen{task_id, witness == id_ ? "" : witness});
  }
  if (changed)
    publish(task_id, now, out);
  // After the change: ranking judges the claim against the merged state;
  // our own claim that changed nothing (a better claim or a later state
  // was here first) learns so from this too, as no task_changed follows.
  if (m.has_dequeue() && (e.from_peer || !changed))
    out.push_back(ev::claim_heard{m.dequeue(), tasks_.find(task_id)->state});
}

void known_tasks_machine::on(const ev::merge_task& e, millis now,
                             ev::events& out) {
  const auto& task_id = e.spec.id();
  if (e.forgotten) {
    forgotten_elsewhere(task_id, now, out);
    return;
  }
  if (task_id.empty()
      || refused(task_id, e.spec_unknown ? nullptr : &e.spec, now, out)) {
    // A peer's snapshot holds by id alone a task forgotten here lately
    // (the number that would tell it so never reached it): answer as to
    // its question, so it drops the task too instead of sending it in
    // every snapshot (and the replicas' digests never agreeing).
    if (e.spec_unknown && !task_id.empty() && forgotten_lately(task_id))
      out.push_back(ev::known_question{task_id});
    return;
  }
  bool changed = !e.spec_unknown && learn(e.spec, out);
  changed |= tasks_.merge_state(task_id, e.state);
  if (changed)
    publish(task_id, now, out);
}

void known_tasks_machine::on(const ev::merge_forgotten& e, millis now,
                             ev::events& out) {
  bool news = false;
  for (const auto& r : e.ranges)
    news |= forgotten_.add(r.origin(), r.first(), r.last());
  if (!news)
    return;
  if (sink_ != nullptr)
    sink_->forget("", e.ranges);
  drop_forgotten(now, out);
}

void known_tasks_machine::drop_forgotten(millis now, ev::events& out) {
  std::vector<std::string> gone;
  for (const auto& [task_id, t] : tasks_.tasks())
    if (t.has_spec && t.spec.has_created() && forgotten_.contains(t.spec.created()))
      gone.push_back(task_id);
  if (!gone.empty())
    out.push_back(ev::tasks_forgotten{gone});
  for (const auto& task_id : gone)
    forget_ended_elsewhere(task_id, now, out);
  if (!gone.empty())
    out.push_back(ev::replica_digest{tasks_.digest()});
}

void known_tasks_machine::forget_ended_elsewhere(const std::string& task_id,
                                                 millis now, ev::events& out) {
  // A task that has not ended here ended elsewhere long ago: whatever
  // holds it (a ready entry, an execution) lets go of it as of a removal.
  const auto* t = tasks_.find(task_id);
  if (!is_terminal(t->state.phase())) {
    auto s = removed_state();
    s.set_reason("forgotten by the cluster: it ended, and its retention passed");
    out.push_back(ev::task_changed{task_id, nullptr, s});
  }
  forget(task_id, now, out);
}

void known_tasks_machine::unschedule(const std::string& task_id) {
  if (auto d = due_at_.find(task_id); d != due_at_.end()) {
    due_.erase({d->second, task_id});
    due_at_.erase(d);
  }
}

bool known_tasks_machine::forgotten_lately(const std::string& task_id) const {
  return recent_.count(task_id) > 0 && tasks_.find(task_id) == nullptr;
}

void known_tasks_machine::forgotten_elsewhere(const std::string& task_id,
                                              millis now, ev::events& out) {
  const auto* t = tasks_.find(task_id);
  if (t != nullptr && t->has_spec)
    return; // its own retention forgets it, by its number
  if (t != nullptr) {
    // What a late message made of it here: it goes, as its number would
    // have taken it had this replica known the number.
    out.push_back(ev::tasks_forgotten{{task_id}});
    forget_ended_elsewhere(task_id, now, out);
    out.push_back(ev::replica_digest{tasks_.digest()});
  } else {
    note_recent(task_id, now);
  }
}

void known_tasks_machine::note_recent(const std::string& task_id, millis now) {
  if (recent_.emplace(task_id, now).second)
    recent_order_.emplace_back(now, task_id);
}

void known_tasks_machine::schedule_forget(const std::string& task_id,
                                          const known_task& t, millis now) {
  // Only an ended task is scheduled, and an ended task never runs again:
  // the changes of a running one cost no lookup here.
  if (!is_terminal(t.state.phase()))
    return;
  unschedule(task_id);
  if (dependants_.any(task_id))
    return; // kept while a child waits on it (follow_parents)
  millis keep = t.has_spec && t.spec.has_keep_for_ms() ? t.spec.keep_for_ms()
                                                       : cfg_.keep_finished_ms;
  // From the end every replica holds alike (the local time for an end
  // that carries none), rounded up to the grid: replicas forget a task at
  // the same moment, give or take their clocks.
  millis end = t.state.finished_time_ms() > 0 ? t.state.finished_time_ms() : now;
  millis at = end + std::max<millis>(keep, 0);
  if (cfg_.forget_grid_ms > 0)
    at = (at / cfg_.forget_grid_ms + 1) * cfg_.forget_grid_ms;
  due_.emplace(at, task_id);
  due_at_[task_id] = at;
}

void known_tasks_machine::forget(const std::string& task_id, millis now,
                                 ev::events&) {
  unschedule(task_id);
  const auto* t = tasks_.find(task_id);
  if (t == nullptr)
    return;
  std::vector<wire::ForgottenRange> mine;
  if (t->has_spec && t->spec.has_created() && forgotten_.add(t->spec.created()))
    mine.push_back(range_of(t->spec.created()));
  if (sink_ != nullptr)
    sink_->forget(task_id, mine);
  if (t->has_spec && t->spec.after_size() > 0) {
    dependants_.remove(t->spec);
    parent_cancels_.erase(task_id);
    drop_orphan(task_id);
  }
  tasks_.forget(task_id);
  specs_.erase(task_id);
  submitted_.erase(task_id);
  adopted_by_.erase(task_id);
  note_recent(task_id, now);
  ++counters_.tasks_forgotten;
}

void known_tasks_machine::on(const ev::live_nodes& e, millis, ev::events&) {
  std::vector<std::string> live{id_};
  for (const auto& [peer, seats] : e.peer_seats)
    live.push_back(peer);
  ticker_.members(std::move(live));
}

void known_tasks_machine::tick(millis now, ev::events& out) {
  cancel_orphans(now, out);
  // A tick held already (another node enqueued it first) is not sent again.
  // One held by id alone is: its ENQUEUE may be lost for good (its
  // enqueuer crashed), and every node can build the tick's spec.
  for (const auto& d : ticker_.due(now)) {
    const auto* record = tasks_.find(schedule_record_id(d.name));
    if (record == nullptr || !record->has_spec)
      continue;
    auto spec = tick_task(record->spec.schedule(), d.tick);
    if (!tasks_.has_spec(spec.id()) && !forgotten_lately(spec.id())) {
      submit(std::move(spec), now, out, false);
      ++counters_.schedule_ticks;
    }
  }
  ev::tasks_forgotten gone;
  while (!due_.empty() && due_.begin()->first <= now) {
    auto task_id = due_.begin()->second;
    forget(task_id, now, out);
    gone.task_ids.push_back(std::move(task_id));
  }
  if (!gone.task_ids.empty()) {
    out.push_back(ev::replica_digest{tasks_.digest()});
    out.push_back(std::move(gone));
  }
  while (!recent_order_.empty()
         && recent_order_.front().first + cfg_.forgotten_ids_ms <= now) {
    const auto& [at, task_id] = recent_order_.front();
    if (auto r = recent_.find(task_id); r != recent_.end() && r->second == at)
      recent_.erase(r);
    recent_order_.pop_front();
  }
}

std::optional<millis> known_tasks_machine::next_due() const {
  std::optional<millis> due;
  if (!due_.empty())
    due = due_.begin()->first;
  if (!recent_order_.empty()) {
    auto at = recent_order_.front().first + cfg_.forgotten_ids_ms;
    due = due ? std::min(*due, at) : at;
  }
  if (auto at = ticker_.next_due())
    due = due ? std::min(*due, *at) : *at;
  if (!orphans_due_.empty()) {
    auto at = orphans_due_.begin()->first;
    due = due ? std::min(*due, at) : at;
  }
  return due;
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
  // A transfer starts with what this replica forgot, so the asker drops
  // (and refuses) those tasks whatever it held or still hears of them.
  if (e.after.empty()) {
    std::size_t bytes = 0;
    for (auto& r : forgotten_.ranges()) {
      auto size = r.ByteSizeLong() + 4;
      if (chunks.empty() || bytes + size > cfg_.wire_budget) {
        chunks.emplace_back().mutable_sync_reply();
        bytes = 8;
      }
      bytes += size;
      total += size;
      *chunks.back().mutable_sync_reply()->add_forgotten() = std::move(r);
    }
  }
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
  // Answered by a replica that holds the spec, or that forgot the task
  // lately (so the asker, which may hold it by id alone, drops it too):
  // asked alone, at once and to the asker alone; asked with everyone,
  // after the resolver's back-off.
  if (e.direct && !e.asker.empty()) {
    if (auto answer = answer_about(e.task_id))
      out.push_back(ev::send_to{e.asker, std::move(*answer)});
  } else if (tasks_.has_spec(e.task_id) || forgotten_lately(e.task_id)) {
    out.push_back(ev::known_question{e.task_id});
  }
}

void known_tasks_machine::on(const ev::answer_due& e, millis,
                             ev::events& out) {
  if (auto answer = answer_about(e.task_id))
    out.push_back(ev::broadcast{std::move(*answer)});
}

std::optional<wire::Message>
known_tasks_machine::answer_about(const std::string& task_id) const {
  if (forgotten_lately(task_id))
    return make_forgotten_answer(task_id);
  const auto* task = tasks_.find(task_id);
  if (task == nullptr || !task->has_spec)
    return std::nullopt;
  if (is_terminal(task->state.phase()))
    return make_already_finished(task->spec, task->state);
  return make_take_my_task(task->spec, task->state);
}

void known_tasks_machine::tell_behind(const known_task& task,
                                      const std::string& sender, ev::events& out) {
  if (sender.empty() || sender == id_)
    return;
  // The node whose claim holds the task (it runs or ended it), and the
  // first behind_tellers of the live ones by rendezvous rank (the same few
  // wherever views agree), tell the sender at once and to it alone: a few
  // datagrams however large the cluster, where answers to everyone cost
  // every node one each. Several, since the first of several answers
  // arrives sooner (within the sender's claim window) and one may be lost;
  // ranking's defence of a losing claim adds its own (measured: without
  // these, 32 nodes at 20% loss ran twice as many duplicates).
  bool holds_it = task.state.claim().node_id() == id_;
  if (!holds_it
      && rendezvous_rank(task.spec.id() + "/" + sender, id_, ticker_.members(), sender)
           >= cfg_.behind_tellers)
    return;
  if (auto answer = answer_about(task.spec.id()))
    out.push_back(ev::send_to{sender, std::move(*answer)});
}

void known_tasks_machine::on(const ev::member_recovered& e, millis now,
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
      settle_parents(task_id, now, out);
      add(task_id, true);
      ++adopted;
      ++counters_.adopted;
    }
  }
  for (auto& m : parts)
    out.push_back(ev::broadcast{std::move(m)});
}

void known_tasks_machine::settle_parents(const std::string& task_id,
                                         millis now, ev::events& out) {
  const auto* t = tasks_.find(task_id);
  if (t == nullptr || !t->has_spec || t->spec.after_size() == 0
      || is_terminal(t->state.phase()))
    return;
  if (auto v = judge_parents(t->spec, tasks_); v.what == parents_verdict::cancel)
    end_for_parent(task_id, *t, v.reason, now, out);
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
                                 ev::events& out, bool ack) {
  // submitted_: the ENQUEUE may still be on its way back to this replica.
  if (spec.id().empty() || tasks_.has_spec(spec.id())
      || !submitted_.insert(spec.id()).second)
    return false;
  // Its number: what every replica keeps of it once it is forgotten.
  if (!spec.has_created())
    *spec.mutable_created() = make_op_id(origin_, ++created_);
  if (spec.enqueuer().empty())
    spec.set_enqueuer(id_);
  if (spec.enqueue_time_ms() == 0)
    spec.set_enqueue_time_ms(now);
  wire::OpId none;
  out.push_back(ev::originate{make_enqueue(spec, none), ack});
  return true;
}

bool known_tasks_machine::remove(const std::string& task_id, millis now,
                                 ev::events& out) {
  if (task_id.empty())
    return false;
  const auto* task = tasks_.find(task_id);
  if (task != nullptr && task->state.phase() == wire::REMOVED)
    return false;
  wire::OpId none;
  out.push_back(ev::originate{make_remove(task_id, none, now)});
  return true;
}

bool known_tasks_machine::cancel(const std::string& task_id, millis now,
                                 ev::events& out) {
  const auto* task = tasks_.find(task_id);
  if (task == nullptr || is_terminal(task->state.phase()))
    return false;
  originate_end(task_id, task->state.attempt(), "canceled by " + id_, now, out);
  return true;
}

void known_tasks_machine::originate_end(const std::string& task_id,
                                        std::uint32_t attempt,
                                        const std::string& reason, millis now,
                                        ev::events& out) {
  wire::TaskState s;
  s.set_phase(wire::CANCELED);
  s.set_attempt(attempt);
  s.set_reason(reason);
  s.set_finished_time_ms(now);
  wire::OpId none;
  out.push_back(ev::originate{make_info(task_id, s, now, &none)});
}

// -- queries ------------------------------------------------------------------

task_row known_tasks_machine::row(const std::string& task_id,
                                  const known_task& t) const {
  task_row r{t.has_spec, t.spec, t.state, owner_of(task_id)};
  if (!t.has_spec)
    r.spec.set_id(task_id);
  // What a child's detail shows of its parents: each one's end so far.
  for (auto& in : judge_parents(t.spec, tasks_).inputs)
    *r.spec.add_inputs() = std::move(in);
  return r;
}

std::vector<task_row> known_tasks_machine::query(const task_query& q) const {
  std::vector<task_row> rows;
  auto wanted = [&](const known_task& t) {
    // A page counts only tasks the API can show (their spec known).
    return (!q.phase || t.state.phase() == *q.phase)
           && (!q.claimed_ahead || claimed_ahead(t.state) == *q.claimed_ahead)
           && (!(q.kind || q.limit || q.workflow || q.in_workflows) || t.has_spec)
           && (q.kind ? t.spec.kind() == *q.kind
                      : q.ids.size() > 0 || !t.spec.has_schedule())
           && (!q.workflow || t.spec.workflow() == *q.workflow)
           && (!q.in_workflows || !t.spec.workflow().empty())
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
  return known_tasks_machine(c.node_id, origin_of(c.node_id, c.incarnation),
                             c.queue);
}

} // namespace dice
