#include "queue_node/queue_node.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "communication/communication.hpp"
#include "known_tasks/task_state.hpp"
#include "ranking/ranking.hpp"

namespace dice {

namespace {

// Ops are kept and resent without the transport's header.
wire::Message body_only(const wire::Message& m) {
  wire::Message copy = m;
  copy.clear_cluster_id();
  copy.clear_sender_id();
  copy.clear_sender_addr();
  copy.clear_incarnation();
  copy.clear_sequence();
  copy.clear_timestamp_ms();
  return copy;
}

} // namespace

queue_node::queue_node(std::string id, std::uint64_t incarnation,
                       std::uint64_t seed, queue_config cfg)
  : id_(std::move(id)),
    cfg_(std::move(cfg)),
    rng_(seed),
    ready_(id_),
    resolver_(cfg_.resolver),
    log_(cfg_.op_log_limit) {
  if (id_.empty())
    throw std::invalid_argument("queue: node id must not be empty");
  if (auto why = cfg_.problem(); !why.empty())
    throw std::invalid_argument("queue: " + why);
  origin_ = id_ + "#" + std::to_string(incarnation);
  info_.set_battery(cfg_.battery);
  info_.set_device_class(cfg_.device_class);
  info_.set_slots(static_cast<std::uint32_t>(cfg_.slots));
}

// -- helpers ------------------------------------------------------------------

millis queue_node::jitter(millis range) {
  if (range <= 0)
    return 0;
  return static_cast<millis>(rng_() % static_cast<std::uint64_t>(range + 1));
}

bool queue_node::names(const wire::TaskState& s, std::uint32_t attempt,
                       const wire::Claim& claim) const {
  return s.phase() == wire::RUNNING && s.attempt() == attempt
         && compare_claims(s.claim(), claim) == 0;
}

void queue_node::originate(wire::Message op, millis now) {
  auto seq = next_seq_++;
  auto id = make_op_id(origin_, seq);
  switch (op.body_case()) {
    case wire::Message::kEnqueue:
      *op.mutable_enqueue()->mutable_op() = id;
      break;
    case wire::Message::kDequeue:
      *op.mutable_dequeue()->mutable_op() = id;
      break;
    case wire::Message::kRemove:
      *op.mutable_remove()->mutable_op() = id;
      break;
    case wire::Message::kInfo:
      *op.mutable_info()->mutable_op() = id;
      break;
    default:
      return;
  }
  seen_.observe(origin_, seq);
  log_.add(origin_, seq, op);
  ++counters_.ops_sent;
  out_.broadcasts.push_back(op);
  apply(op, now, false);
}

void queue_node::receive_op(const wire::Message& m, millis now,
                            bool relayed) {
  auto op = op_of(m);
  if (!op || task_id_of(m).empty()) {
    ++counters_.rejected;
    return;
  }
  if (!seen_.observe(op->origin(), op->seq())) {
    ++counters_.duplicate_ops;
    return;
  }
  ++counters_.ops_received;
  log_.add(op->origin(), op->seq(), body_only(m));
  apply(m, now, !relayed);
  if (m.has_dequeue() && !relayed)
    defend(m.dequeue(), now);
}

void queue_node::defend(const wire::Dequeue& d, millis now) {
  // A claim that lost to ours: its claimer may not have heard ours (lost
  // broadcast) and would execute at the end of its window. Tell it now.
  if (d.claim().node_id() == id_)
    return;
  const auto* task = tasks_.find(d.task_id());
  if (task == nullptr)
    return;
  const auto& s = task->state;
  auto p = pending_.find(d.task_id());
  const auto* e = running_.mine(d.task_id());
  bool ours = (p != pending_.end() && names(s, p->second.attempt, p->second.claim))
              || (e != nullptr && names(s, e->attempt, e->claim));
  if (s.phase() != wire::RUNNING || s.attempt() != d.attempt()
      || compare_claims(s.claim(), d.claim()) >= 0)
    return;
  // The winner may not hear the losing claim, or its answer may be lost:
  // a few other nodes that know the better claim answer too.
  if (!ours && !helps(d.task_id(), d.claim().node_id()))
    return;
  // Sent to the claimer alone: the others heard the winning claim or will
  // hear its RUNNING heartbeats.
  out_.sends.push_back({d.claim().node_id(), make_info(d.task_id(), s, now, nullptr)});
  ++counters_.defenses;
}

bool queue_node::helps(const std::string& task_id,
                       const std::string& claimer) const {
  if (cfg_.claim_helpers == 0)
    return false;
  // About claim_helpers nodes pick themselves, each from its own hash alone.
  auto u = static_cast<double>(rendezvous_hash(task_id, id_ + "/" + claimer)
                               >> 11)
           * 0x1.0p-53;
  auto live = static_cast<double>(peers_.size() + 1);
  return u * live < static_cast<double>(cfg_.claim_helpers);
}

void queue_node::learned_spec(const std::string& task_id) {
  resolver_.resolved(task_id);
  maybe_unknown_.erase(task_id);
}

void queue_node::apply(const wire::Message& m, millis now, bool from_peer) {
  auto task_id = task_id_of(m);
  if (task_id.empty())
    return;
  bool changed = false;
  if (m.has_enqueue()) {
    if (tasks_.learn_spec(m.enqueue().spec())) {
      learned_spec(task_id);
      changed = true;
    }
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
    if (from_peer && !overtaken && !is_terminal(state->phase())
        && task->has_spec && is_terminal(task->state.phase()))
      resolver_.stale(task_id, now, rng_, cfg_.claim_window_ms / 2);
    if (m.has_info() && m.info().phase() == wire::RUNNING)
      running_.heard(task_id, m.info().attempt(), m.info().claim().node_id(),
                     now + cfg_.running_timeout_ms
                       + jitter(cfg_.requeue_jitter_ms));
  }
  if (!tasks_.has_spec(task_id))
    maybe_unknown_.insert(task_id);
  if (changed)
    settle(task_id, now);
}

void queue_node::settle(const std::string& task_id, millis now) {
  const auto* task = tasks_.find(task_id);
  if (task == nullptr)
    return;
  const wire::TaskState s = task->state; // copy: the calls below may merge
  bool running = s.phase() == wire::RUNNING;

  if (task->has_spec && s.phase() == wire::READY) {
    ready_since_.try_emplace(task_id, now);
    // A re-queued task goes ahead of first attempts of its priority.
    ready_.insert(task_id, task->spec.priority(), s.attempt() > 1);
  } else {
    ready_since_.erase(task_id);
    ready_.erase(task_id);
  }

  if (is_terminal(s.phase()) && finished_.record(task_id, s))
    out_.finished.push_back(task_id);
  out_.changed.push_back(task_id);

  if (auto p = pending_.find(task_id);
      p != pending_.end() && !names(s, p->second.attempt, p->second.claim)) {
    // Lost the lottery before the window ended: the slot is free again.
    pending_.erase(p);
    ++counters_.claims_lost;
  }

  if (auto* e = running_.mine(task_id)) {
    if (is_terminal(s.phase())) {
      cancel_execution(task_id);
    } else if (s.attempt() > e->attempt) {
      // Re-queued while we still run it (our heartbeats went missing):
      // claim the new attempt for this same execution.
      reclaim(task_id, s.attempt(), now);
      return; // reclaim merged, and settled again
    } else if (!names(s, e->attempt, e->claim)) {
      // A better claim for our attempt arrived late: the loser cancels.
      cancel_execution(task_id);
    }
  }

  bool mine = running && s.claim().node_id() == id_;
  if (running && !mine)
    running_.watch(task_id, s.attempt(), s.claim().node_id(),
                   now + cfg_.running_timeout_ms
                     + jitter(cfg_.requeue_jitter_ms));
  else
    running_.unwatch(task_id);

  if (mine) {
    auto p = pending_.find(task_id);
    auto* e = running_.mine(task_id);
    bool pending_named = p != pending_.end();
    bool executing_named = e != nullptr && names(s, e->attempt, e->claim);
    // Our claim, yet neither waiting nor executing: a previous incarnation of
    // this node made it and took the execution down with it.
    if (!pending_named && !executing_named)
      requeue(task_id, s.attempt() + 1, now);
  }
}

// -- claims and executions ------------------------------------------------------

void queue_node::claim(const std::string& task_id, millis now) {
  const auto* task = tasks_.find(task_id);
  auto attempt = task->state.attempt();
  auto c = make_claim(id_, info_, task->spec, now);
  // The first attempt is ready from its enqueue on; a re-queued one from
  // when this node learnt of the re-queue.
  auto since = ready_since_.find(task_id);
  millis ready = since == ready_since_.end() ? now : since->second;
  if (attempt <= 1 && task->spec.enqueue_time_ms() > 0)
    ready = task->spec.enqueue_time_ms();
  pending_[task_id] =
    pending_claim{attempt, c, now + cfg_.claim_window_ms, ready};
  ++counters_.claims;
  wire::OpId none;
  originate(make_dequeue(task_id, attempt, c, none), now);
}

void queue_node::fill_slots(millis now) {
  auto busy = [this] {
    return pending_.size() + running_.executing() >= cfg_.slots;
  };
  if (!busy() && free_since_ < 0)
    free_since_ = now;
  while (!busy()) {
    auto next = next_claim(now);
    if (!next)
      return;
    claim(*next, now); // leaves the ready queue: the state is RUNNING now
  }
  free_since_ = -1;
}

std::size_t queue_node::idle_nodes() const {
  auto live = peers_.size() + 1;
  auto busy = std::min(running_.busy_nodes(), live - 1);
  return live - busy;
}

std::optional<std::string> queue_node::next_claim(millis now) const {
  auto first = ready_.peek();
  if (!first || cfg_.claim_stagger_ms == 0)
    return first;
  auto idle = idle_nodes();
  if (idle <= 1)
    return first; // nobody to collide with
  // This node's rank for a task among `idle` nodes, estimated from its own
  // rendezvous hash alone (hashes are uniform): no need to hash every peer.
  // The first few tasks of the walk suffice: later ones rank worse for us.
  constexpr std::size_t lookahead = 4;
  const auto priority = tasks_.find(*first)->spec.priority();
  for (const auto& task_id : ready_.next(lookahead)) {
    const auto* task = tasks_.find(task_id);
    if (task->spec.priority() != priority)
      break; // priority first, whatever the stagger
    auto since = ready_since_.find(task_id);
    auto from = since == ready_since_.end() ? free_since_
                                            : std::max(since->second, free_since_);
    auto u = static_cast<double>(rendezvous_hash(task_id, id_) >> 11)
             * 0x1.0p-53;
    auto wait = static_cast<millis>(u * static_cast<double>(idle)
                                    * static_cast<double>(cfg_.claim_stagger_ms));
    if (now >= from + wait)
      return task_id;
  }
  return std::nullopt;
}

void queue_node::end_claim_windows(millis now) {
  for (auto p = pending_.begin(); p != pending_.end();) {
    if (p->second.window_end > now) {
      ++p;
      continue;
    }
    auto task_id = p->first;
    auto pc = p->second;
    p = pending_.erase(p);
    const auto* task = tasks_.find(task_id);
    if (task == nullptr || !names(task->state, pc.attempt, pc.claim)) {
      ++counters_.claims_lost;
      continue;
    }
    running_.start(task_id, pc.attempt, pc.claim,
                   now + cfg_.running_interval_ms);
    auto* e = running_.mine(task_id);
    e->ready_ms = pc.ready_ms;
    e->started_ms = now;
    ++counters_.executions_started;
    out_.start.push_back({task_id, pc.attempt, task->spec});
  }
}

void queue_node::reclaim(const std::string& task_id, std::uint32_t attempt,
                         millis now) {
  auto* e = running_.mine(task_id);
  e->attempt = attempt;
  ++counters_.reclaims;
  wire::OpId none;
  // The same claim (and so the same, older dequeue time) as before.
  originate(make_dequeue(task_id, attempt, e->claim, none), now);
}

void queue_node::cancel_execution(const std::string& task_id) {
  auto* e = running_.mine(task_id);
  if (e == nullptr)
    return;
  out_.cancel.push_back({task_id, e->started_attempt, {}});
  ++counters_.executions_canceled;
  running_.stop(task_id);
}

void queue_node::requeue(const std::string& task_id,
                         std::uint32_t next_attempt, millis now) {
  ++counters_.requeues;
  wire::OpId none;
  originate(make_info(task_id, ready_state(next_attempt), now, &none), now);
}

void queue_node::execution_finished(const std::string& task_id,
                                    std::uint32_t attempt, bool ok,
                                    const std::string& result, millis now,
                                    millis started) {
  auto* e = running_.mine(task_id);
  if (e == nullptr || e->started_attempt != attempt)
    return; // canceled meanwhile
  auto exec = *e;
  running_.stop(task_id);
  const auto* task = tasks_.find(task_id);
  if (task == nullptr || is_terminal(task->state.phase()))
    return;
  wire::OpId none;
  wire::TaskState s;
  s.set_attempt(exec.attempt);
  *s.mutable_claim() = exec.claim;
  s.set_finished_time_ms(now);
  s.set_ready_time_ms(exec.ready_ms);
  s.set_started_time_ms(started > 0 ? started : exec.started_ms);
  if (ok) {
    // Reported even if our claim lost meanwhile: the work is done.
    s.set_phase(wire::DONE);
    s.set_result(result);
    originate(make_info(task_id, s, now, &none), now);
    return;
  }
  if (!names(task->state, exec.attempt, exec.claim))
    return; // superseded: the winner reports
  // The attempt this execution was started for counts: a reclaim renumbers
  // the same execution after its heartbeats went missing, which is no
  // failed execution.
  if (exec.started_attempt >= cfg_.max_attempts) {
    s.set_phase(wire::FAILED);
    s.set_reason(result);
    originate(make_info(task_id, s, now, &none), now);
  } else {
    requeue(task_id, exec.attempt + 1, now);
  }
}

// -- user operations ----------------------------------------------------------

std::optional<wire::OpId> queue_node::submit(wire::TaskSpec spec, millis now) {
  if (spec.id().empty() || tasks_.has_spec(spec.id()))
    return std::nullopt;
  if (spec.enqueuer().empty())
    spec.set_enqueuer(id_);
  if (spec.enqueue_time_ms() == 0)
    spec.set_enqueue_time_ms(now);
  auto op = make_op_id(origin_, next_seq_);
  awaiting_ack_[spec.id()] = op;
  wire::OpId none;
  originate(make_enqueue(spec, none), now);
  check_acks();
  return op;
}

std::optional<wire::OpId> queue_node::remove(const std::string& task_id,
                                             millis now) {
  if (task_id.empty())
    return std::nullopt;
  const auto* task = tasks_.find(task_id);
  if (task != nullptr && task->state.phase() == wire::REMOVED)
    return std::nullopt;
  auto op = make_op_id(origin_, next_seq_);
  wire::OpId none;
  originate(make_remove(task_id, none), now);
  return op;
}

bool queue_node::cancel(const std::string& task_id, millis now) {
  const auto* task = tasks_.find(task_id);
  if (task == nullptr || is_terminal(task->state.phase()))
    return false;
  wire::TaskState s;
  s.set_phase(wire::CANCELED);
  s.set_attempt(task->state.attempt());
  s.set_reason("canceled by " + id_);
  s.set_finished_time_ms(now);
  wire::OpId none;
  originate(make_info(task_id, s, now, &none), now);
  return true;
}

// -- messages -------------------------------------------------------------------

void queue_node::on_message(const wire::Message& m, millis now) {
  if (m.sender_id() == id_)
    return; // our own broadcast looped back
  switch (classify(m)) {
    case queue_message::none:
      return;
    case queue_message::operation:
      receive_op(m, now);
      break;
    case queue_message::running:
      if (m.info().task_id().empty() || m.info().claim().node_id().empty()) {
        ++counters_.rejected;
        return;
      }
      apply(m, now, true);
      break;
    case queue_message::question: {
      const auto& task_id = m.do_you_know_this_task().task_id();
      if (tasks_.has_spec(task_id))
        resolver_.asked(task_id, now, rng_);
      break;
    }
    case queue_message::answer: {
      const auto& spec = m.has_take_my_task()
                           ? m.take_my_task().spec()
                           : m.already_finished_task().spec();
      auto task_id = task_id_of(m);
      if (task_id.empty() || spec.id() != task_id) {
        ++counters_.rejected;
        return;
      }
      resolver_.answer_seen(task_id);
      bool changed = false;
      if (tasks_.learn_spec(spec)) {
        learned_spec(task_id);
        changed = true;
      }
      changed |= tasks_.merge_state(task_id, *state_of(m));
      if (changed)
        settle(task_id, now);
      break;
    }
    case queue_message::sync_request:
      on_sync_request(m);
      break;
    case queue_message::sync_reply:
      on_sync_reply(m, now);
      break;
    case queue_message::recovery:
      on_recovery(m);
      break;
    case queue_message::stable_point:
      on_stable_point(m);
      break;
  }
  ask_unknown(now);
}

void queue_node::ask_unknown(millis now) {
  for (const auto& task_id : maybe_unknown_)
    if (!tasks_.has_spec(task_id) && resolver_.unknown(task_id, now))
      out_.broadcasts.push_back(make_do_you_know(task_id));
  maybe_unknown_.clear();
}

void queue_node::answer(const std::string& task_id) {
  const auto* task = tasks_.find(task_id);
  if (task == nullptr || !task->has_spec)
    return;
  if (is_terminal(task->state.phase()))
    out_.broadcasts.push_back(make_already_finished(task->spec, task->state));
  else
    out_.broadcasts.push_back(make_take_my_task(task->spec, task->state));
}

// -- anti-entropy -------------------------------------------------------------

void queue_node::fill_heartbeat(wire::Heartbeat* hb) const {
  hb->clear_versions();
  seen_.to_wire(hb->mutable_versions());
  hb->set_replica_digest(tasks_.digest());
}

void queue_node::on_peer_heartbeat(const std::string& peer,
                                   std::uint64_t incarnation,
                                   const wire::Heartbeat& hb, millis now) {
  if (peer.empty() || peer == id_)
    return;
  // Back, or restarted: it speaks for itself, and may die again.
  unrecovered_.erase(peer);
  recovered_.erase(peer);
  auto reported = version_vector::from_wire(hb.versions());
  // Ops the peer held in its earlier reports (a heartbeat ago or more) and
  // we still lack were lost, not merely in flight. The stored vector is that
  // join, so no separate copy of the previous report is kept (with hundreds
  // of peers, each vector holding hundreds of origins, copies add up).
  const auto* earlier = peers_.find(peer, incarnation);
  bool lost_ops = earlier != nullptr && seen_.behind(*earlier);
  // Same ops seen yet different replicas, two reports running: the
  // difference was learnt outside the op log (an unknown-task answer whose
  // ENQUEUE is lost for good), so only a snapshot can carry it.
  bool differs = reported == seen_ && hb.replica_digest() != tasks_.digest();
  bool diverged = differs && differed_.count(peer) > 0;
  if (differs)
    differed_.insert(peer);
  else
    differed_.erase(peer);
  peers_.update(peer, incarnation, reported);
  check_acks();
  if (now >= next_sync_ && (lost_ops || diverged))
    request_sync(peer, now, !lost_ops);
}

void queue_node::request_sync(const std::string& peer, millis now,
                              bool snapshot) {
  wire::Message m;
  auto* req = m.mutable_sync_request();
  seen_.to_wire(req->mutable_have());
  // A snapshot under way from this peer continues where it stopped: a lost
  // chunk costs one chunk, not the whole transfer.
  if (snapshot_ && snapshot_->peer == peer) {
    snapshot = true;
    req->set_snapshot_after(snapshot_->cursor);
  }
  req->set_want_snapshot(snapshot);
  out_.sends.push_back({peer, std::move(m)});
  next_sync_ = now + cfg_.sync_interval_ms;
  ++counters_.sync_requests;
}

void queue_node::fill_snapshot(wire::SyncReply* r,
                               const std::string& after) const {
  seen_.to_wire(r->mutable_snapshot_versions());
  r->set_snapshot_after(after);
  // Tasks in id order after `after`, as many as fit in one datagram.
  const std::size_t budget = defaults::max_datagram_bytes - 4096;
  std::size_t bytes = r->ByteSizeLong();
  const auto& all = tasks_.tasks();
  for (auto i = all.upper_bound(after); i != all.end(); ++i) {
    const auto& [task_id, task] = *i;
    wire::TakeMyTask t;
    if (task.has_spec) {
      *t.mutable_spec() = task.spec;
    } else {
      t.mutable_spec()->set_id(task_id);
      t.set_spec_unknown(true);
    }
    *t.mutable_state() = task.state;
    bytes += t.ByteSizeLong() + 8;
    if (bytes > budget && r->snapshot_size() > 0) {
      r->set_snapshot_more(true);
      return;
    }
    *r->add_snapshot() = std::move(t);
  }
}

void queue_node::on_sync_request(const wire::Message& m) {
  if (m.sender_id().empty()) {
    ++counters_.rejected;
    return;
  }
  const auto& req = m.sync_request();
  auto have = version_vector::from_wire(req.have());
  wire::Message reply;
  auto* r = reply.mutable_sync_reply();
  std::optional<std::vector<wire::Message>> ops;
  if (!req.want_snapshot())
    ops = log_.missing(have, seen_, cfg_.sync_batch_ops);
  if (ops) {
    if (ops->empty())
      return; // nothing the asker lacks
    // Stop short of a datagram, leaving room for the header; the asker asks
    // again for the rest.
    const std::size_t budget = defaults::max_datagram_bytes - 4096;
    std::size_t bytes = 0;
    for (auto& op : *ops) {
      bytes += op.ByteSizeLong() + 8;
      if (bytes > budget && r->ops_size() > 0)
        break;
      *r->add_ops() = std::move(op);
    }
  } else {
    // The ops it lacks left our log, or ops cannot tell what differs:
    // transfer the whole replica.
    fill_snapshot(r, req.want_snapshot() ? req.snapshot_after() : "");
    ++counters_.snapshots_sent;
  }
  ++counters_.sync_replies;
  out_.sends.push_back({m.sender_id(), std::move(reply)});
}

void queue_node::on_sync_reply(const wire::Message& m, millis now) {
  const auto& r = m.sync_reply();
  for (const auto& op : r.ops())
    if (classify(op) == queue_message::operation)
      receive_op(op, now, true);
  if (r.snapshot_size() > 0 || r.snapshot_versions_size() > 0) {
    for (const auto& t : r.snapshot()) {
      const auto& task_id = t.spec().id();
      if (task_id.empty())
        continue;
      bool changed = false;
      if (!t.spec_unknown() && tasks_.learn_spec(t.spec())) {
        learned_spec(task_id);
        changed = true;
      }
      changed |= tasks_.merge_state(task_id, t.state());
      if (changed)
        settle(task_id, now);
    }
    if (snapshot_chunk(m.sender_id(), r)) {
      request_sync(m.sender_id(), now, true);
      return;
    }
  }
  // A partial batch: ask straight away for the rest.
  if (const auto* theirs = peers_.find(m.sender_id());
      theirs != nullptr && seen_.behind(*theirs))
    request_sync(m.sender_id(), now, false);
}

bool queue_node::snapshot_chunk(const std::string& peer,
                                const wire::SyncReply& r) {
  // Merging a chunk's tasks is always safe; raising our version vector is
  // not until every chunk arrived. The first chunk's vector is the one to
  // raise to: each later chunk was cut later, and task states only grow, so
  // together the chunks hold every op that vector names.
  if (r.snapshot_after().empty())
    snapshot_ = snapshot_progress{peer,
                                  version_vector::from_wire(r.snapshot_versions()),
                                  ""};
  else if (!snapshot_ || snapshot_->peer != peer
           || snapshot_->cursor != r.snapshot_after())
    return false; // a stale or repeated chunk: its tasks are merged, that is all
  if (r.snapshot_size() > 0)
    snapshot_->cursor = r.snapshot(r.snapshot_size() - 1).spec().id();
  if (r.snapshot_more())
    return true;
  seen_.raise_to(snapshot_->base);
  snapshot_.reset();
  ++counters_.snapshots_applied;
  return false;
}

void queue_node::on_peer_dead(const std::string& peer, millis now) {
  if (peer.empty() || peer == id_)
    return;
  peers_.forget(peer);
  differed_.erase(peer);
  if (snapshot_ && snapshot_->peer == peer)
    snapshot_.reset(); // another peer's snapshot starts over
  // The coordinator's announcement may come before our own detection.
  bool announced = recovered_.count(peer) > 0;
  if (!announced && acts_as_coordinator())
    recover(peer, now);
  else if (!announced)
    unrecovered_.insert(peer); // the coordinator's announcement will come
  check_acks();
}

void queue_node::recover(const std::string& peer, millis now) {
  unrecovered_.erase(peer);
  if (coordinated_)
    recovered_.insert(peer);
  ++counters_.recoveries;
  wire::Message m;
  auto* r = m.mutable_recovery();
  r->set_node_id(peer);
  for (const auto& task_id : running_.run_by(peer)) {
    const auto* w = running_.find_watched(task_id);
    if (w == nullptr)
      continue;
    requeue(task_id, w->attempt + 1, now);
    r->add_requeued(task_id);
  }
  if (!coordinated_)
    return; // every node recovers for itself: nothing to announce
  // The dead node can no longer answer for what it enqueued: the
  // coordinator becomes the enqueuer of record of its unfinished tasks.
  for (const auto& [task_id, task] : tasks_.tasks()) {
    if (static_cast<std::size_t>(r->adopted_size()) >= cfg_.recovery_adopt_limit)
      break;
    if (task.has_spec && task.spec.enqueuer() == peer
        && !is_terminal(task.state.phase()) && owner_of(task_id) == peer) {
      adopted_by_[task_id] = id_;
      r->add_adopted(task_id);
      ++counters_.adopted;
    }
  }
  out_.broadcasts.push_back(std::move(m));
}

void queue_node::on_recovery(const wire::Message& m) {
  const auto& r = m.recovery();
  if (r.node_id().empty() || m.sender_id().empty()) {
    ++counters_.rejected;
    return;
  }
  ++counters_.recoveries_heard;
  unrecovered_.erase(r.node_id());
  recovered_.insert(r.node_id());
  for (const auto& task_id : r.adopted())
    if (!task_id.empty())
      adopted_by_[task_id] = m.sender_id();
}

void queue_node::set_coordinator(const std::string& coordinator, millis now) {
  bool was = acts_as_coordinator();
  coordinated_ = true;
  coordinator_ = coordinator;
  if (!acts_as_coordinator())
    return;
  // Newly elected: recover the members that died while nobody (or a
  // coordinator that died too) was in charge.
  auto pending = unrecovered_;
  for (const auto& peer : pending)
    recover(peer, now);
  if (!was)
    next_stable_point_ = now;
}

std::string queue_node::owner_of(const std::string& task_id) const {
  if (auto it = adopted_by_.find(task_id); it != adopted_by_.end())
    return it->second;
  const auto* task = tasks_.find(task_id);
  return task != nullptr && task->has_spec ? task->spec.enqueuer() : "";
}

void queue_node::compact_to(const std::map<std::string, std::uint64_t>& floors) {
  log_.compact([&floors](const std::string& origin) {
    auto f = floors.find(origin);
    return f == floors.end() ? std::uint64_t{0} : f->second;
  });
}

void queue_node::announce_stable_point(millis now) {
  auto floors = peers_.floors(seen_);
  compact_to(floors);
  next_stable_point_ = now + cfg_.stable_point_interval_ms;
  if (peers_.empty())
    return;
  wire::Message m;
  auto* sp = m.mutable_stable_point();
  for (const auto& [origin, seq] : floors) {
    if (seq == 0)
      continue;
    auto* e = sp->add_stable();
    e->set_origin(origin);
    e->set_seq(seq);
  }
  ++counters_.stable_points_sent;
  out_.broadcasts.push_back(std::move(m));
}

void queue_node::on_stable_point(const wire::Message& m) {
  // One voice: only the coordinator we follow decides what is stable.
  if (!coordinated_ || m.sender_id() != coordinator_ || coordinator_ == id_) {
    ++counters_.rejected;
    return;
  }
  std::map<std::string, std::uint64_t> floors;
  for (const auto& e : m.stable_point().stable())
    if (!e.origin().empty())
      floors[e.origin()] = e.seq();
  compact_to(floors);
  ++counters_.stable_points_applied;
}

void queue_node::check_acks() {
  for (auto i = awaiting_ack_.begin(); i != awaiting_ack_.end();) {
    if (peers_.empty() || replicated(i->second)) {
      acked_.insert(i->first);
      out_.acknowledged.push_back(i->first);
      i = awaiting_ack_.erase(i);
    } else {
      ++i;
    }
  }
}

bool queue_node::acknowledged(const std::string& task_id) const {
  return acked_.count(task_id) > 0;
}

bool queue_node::replicated(const wire::OpId& op) const {
  return peers_.covered(op.origin(), op.seq());
}

// -- time -----------------------------------------------------------------------

void queue_node::tick(millis now) {
  for (const auto& task_id : resolver_.answers_due(now))
    answer(task_id);
  for (const auto& task_id : resolver_.asks_due(now))
    if (!tasks_.has_spec(task_id))
      out_.broadcasts.push_back(make_do_you_know(task_id));
  end_claim_windows(now);
  for (const auto& task_id :
       running_.heartbeats_due(now, cfg_.running_interval_ms)) {
    const auto* e = running_.mine(task_id);
    wire::TaskState s;
    s.set_phase(wire::RUNNING);
    s.set_attempt(e->attempt);
    *s.mutable_claim() = e->claim;
    out_.broadcasts.push_back(make_info(task_id, s, now, nullptr));
    ++counters_.running_heartbeats;
  }
  for (const auto& task_id : running_.overdue(now)) {
    const auto* task = tasks_.find(task_id);
    if (task != nullptr && task->state.phase() == wire::RUNNING)
      requeue(task_id, task->state.attempt() + 1, now);
  }
  fill_slots(now);
  if (coordinated_ && acts_as_coordinator()) {
    if (now >= next_stable_point_)
      announce_stable_point(now);
  } else if ((!coordinated_ || coordinator_.empty()) && now >= next_compact_
             && log_.size() > 0) {
    // No election, or none won yet: each replica compacts on its own.
    compact_to(peers_.floors(seen_));
    next_compact_ = now + cfg_.compact_interval_ms;
  }

  check_acks();
  ask_unknown(now);
}

queue_outbox queue_node::take_outbox() {
  queue_outbox result;
  std::swap(result, out_);
  return result;
}

} // namespace dice
