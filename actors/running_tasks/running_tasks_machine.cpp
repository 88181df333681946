#include "running_tasks/running_tasks_machine.hpp"

#include <algorithm>

#include "vocabulary/station.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "vocabulary/queue_messages.hpp"
#include "known_tasks/task_state.hpp"
#include "vocabulary/ranking.hpp"

namespace dice {

running_tasks_machine::running_tasks_machine(std::string id, queue_config cfg,
                                             std::uint64_t seed)
  : id_(std::move(id)),
    cfg_(std::move(cfg)),
    rng_(seed),
    // Ticks come every tick_ms while anything runs; a heartbeat interval
    // without one is no scheduling noise.
    pauses_(cfg_.running_interval_ms) {
}

millis running_tasks_machine::deadline(millis now) {
  // Jittered so that the nodes watching a silent executor do not all
  // re-queue its task at once.
  millis jitter = 0;
  if (cfg_.requeue_jitter_ms > 0)
    jitter = static_cast<millis>(
      rng_() % static_cast<std::uint64_t>(cfg_.requeue_jitter_ms + 1));
  return now + cfg_.running_timeout_ms + jitter;
}

void running_tasks_machine::judge(const std::string& task_id,
                                  const wire::TaskState& s,
                                  ev::events& out) {
  auto* x = running_.mine(task_id);
  if (x == nullptr)
    return;
  states_[task_id] = s;
  if (is_terminal(s.phase())) {
    stop(task_id, out);
  } else if (s.attempt() > x->attempt) {
    // Re-queued while we still run it (our heartbeats went missing):
    // claim the new attempt for this same execution, with the same claim
    // (and so the same, older dequeue time) as before.
    x->attempt = s.attempt();
    x->begun_told = false; // the new attempt's claim carries no mark
    ++counters_.reclaims;
    wire::OpId none;
    out.push_back(
      ev::originate{make_dequeue(task_id, s.attempt(), x->claim, none)});
  } else if (s.phase() == wire::RUNNING && s.attempt() == x->attempt
             && better_claim(s.claim(), x->claim)) {
    // A better claim for our attempt: the loser cancels. (READY, or a
    // worse claim: our own claim, started without a window, is not
    // merged yet.)
    stop(task_id, out);
  }
}

void running_tasks_machine::on(const ev::task_changed& e, millis now,
                               ev::events& out) {
  const auto& s = e.state;
  if (running_.mine(e.task_id) != nullptr)
    judge(e.task_id, s, out);
  else if (auto n = named_.find(e.task_id); n != named_.end())
    n->second.state = s;
  else if (s.phase() == wire::RUNNING && s.claim().node_id() == id_)
    named_.emplace(e.task_id,
                   named_claim{s, s.claim().dequeue_time_ms()
                                    + cfg_.running_timeout_ms
                                    + cfg_.claim_window_ms});
  // Only a task whose spec this replica holds is watched (and re-queued if
  // its executor goes silent or dies). Of a task known by id alone (its
  // ENQUEUE lost here) the replica lacks the number that retention
  // forgets it by, so it would hold the RUNNING state, and might re-queue
  // it, long after the cluster ended and forgot it: a spec-less entry on
  // every replica, ever after. The replicas that hold the spec watch it.
  if (s.phase() == wire::RUNNING && s.claim().node_id() != id_ && e.spec)
    running_.watch(e.task_id, s.attempt(), s.claim().node_id(), deadline(now));
  else
    running_.unwatch(e.task_id);
}

void running_tasks_machine::on(const ev::running_heard& e, millis now,
                               ev::events&) {
  running_.heard(e.task_id, e.attempt, e.node, deadline(now));
}

void running_tasks_machine::on(const ev::claim_heard& e, millis,
                               ev::events& out) {
  // Our own claim merged, yet it changed nothing: the task had moved on
  // before (an execution started without a window learns only here that
  // it lost).
  if (e.claim.claim().node_id() == id_)
    judge(e.claim.task_id(), e.state, out);
}

void running_tasks_machine::on(const ev::start_execution& e, millis now,
                               ev::events& out) {
  if (running_.mine(e.task_id) != nullptr)
    return;
  running_.start(e.task_id, e.attempt, e.claim,
                 now + cfg_.running_interval_ms);
  auto* x = running_.mine(e.task_id);
  x->ready_ms = e.ready_ms;
  x->started_ms = now;
  if (e.spec) {
    x->max_attempts = e.spec->max_attempts();
    x->backoff_ms = e.spec->backoff_ms();
    x->expires_ms = e.spec->expires_ms();
  }
  states_[e.task_id] = e.state;
  ++counters_.executions_started;
  out.push_back(ev::run_order{e.task_id, e.attempt, e.spec});
  // What was merged since the state ranking went by, if this mailbox
  // had it first.
  if (auto n = named_.find(e.task_id); n != named_.end()) {
    auto s = n->second.state;
    named_.erase(n);
    judge(e.task_id, s, out);
  }
}

void running_tasks_machine::on(const ev::execution_begun& e, millis,
                               ev::events&) {
  auto* x = running_.mine(e.task_id);
  if (x != nullptr && x->started_attempt == e.attempt)
    x->begun_ms = e.started;
}

void running_tasks_machine::mark_start(const std::string& task_id,
                                       running_tasks::execution& x,
                                       millis now, ev::events& out) {
  if (x.begun_ms == 0 || x.begun_told || now < x.begun_ms + cfg_.start_mark_delay_ms)
    return;
  x.begun_told = true;
  auto known = states_.find(task_id);
  if (known == states_.end())
    return;
  const auto& merged = known->second;
  if (merged.phase() != wire::RUNNING || merged.attempt() != x.attempt
      || compare_claims(merged.claim(), x.claim) != 0)
    return; // not (yet) merged as ours: nothing to mark
  auto s = merged;
  s.set_started_time_ms(x.begun_ms);
  // It stands for the next RUNNING heartbeat too: a long task sends no
  // more messages for its mark.
  x.next_heartbeat = now + cfg_.running_interval_ms;
  wire::OpId none;
  // An op, so a replica that missed it gets it from anti-entropy.
  out.push_back(ev::originate{make_info(task_id, s, now, &none), false,
                              cfg_.running_hold_ms()});
  ++counters_.start_marks;
}

void running_tasks_machine::stop(const std::string& task_id,
                                 ev::events& out) {
  auto* x = running_.mine(task_id);
  if (x == nullptr)
    return;
  out.push_back(ev::cancel_order{task_id, x->started_attempt});
  ++counters_.executions_canceled;
  running_.stop(task_id);
  states_.erase(task_id);
  out.push_back(ev::execution_over{task_id});
}

std::optional<millis> running_tasks_machine::next_due() const {
  if (running_.executing() > 0 || running_.watched_count() > 0)
    return millis{0};
  std::optional<millis> due;
  for (const auto& [task_id, n] : named_)
    due = due ? std::min(*due, n.forget_at) : n.forget_at;
  return due;
}

void running_tasks_machine::on(const ev::execution_report& e, millis now,
                               ev::events& out) {
  auto* x = running_.mine(e.task_id);
  if (x == nullptr || x->started_attempt != e.attempt)
    return; // canceled meanwhile
  auto exec = *x;
  auto state = states_[e.task_id];
  running_.stop(e.task_id);
  states_.erase(e.task_id);
  // A prefetched claim's slot began later than its hand-over here.
  auto began = e.started > 0 ? e.started : exec.started_ms;
  out.push_back(ev::execution_over{e.task_id, std::max<millis>(now - began, 0)});
  if (is_terminal(state.phase()))
    return;
  wire::TaskState s;
  s.set_attempt(exec.attempt);
  *s.mutable_claim() = exec.claim;
  s.set_finished_time_ms(now);
  s.set_ready_time_ms(exec.ready_ms);
  s.set_started_time_ms(e.started > 0 ? e.started : exec.started_ms);
  if (e.ok) {
    // Reported even if our claim lost meanwhile: the work is done.
    s.set_phase(wire::DONE);
    s.set_result(e.result);
    report_end(e.task_id, s, now, out);
    return;
  }
  bool named = state.phase() == wire::RUNNING
               && state.attempt() == exec.attempt
               && compare_claims(state.claim(), exec.claim) == 0;
  if (!named)
    return; // superseded: the winner reports
  // The attempt this execution was started for counts: a reclaim renumbers
  // the same execution after its heartbeats went missing, which is no
  // failed execution.
  if (e.expired && exec.expires_ms > 0) {
    report_end(e.task_id, expired_state(exec.attempt, exec.expires_ms), now, out);
    return;
  }
  auto attempts = exec.max_attempts > 0 ? exec.max_attempts : cfg_.max_attempts;
  if (e.final || exec.started_attempt >= attempts) {
    s.set_phase(wire::FAILED);
    s.set_reason(e.result);
    report_end(e.task_id, s, now, out);
  } else {
    ++counters_.retries;
    // No backoff: the same READY state a silent executor's re-queue makes.
    auto wait = retry_wait(exec.started_attempt, exec.backoff_ms);
    requeue(e.task_id, exec.attempt + 1, now, out, wait > 0 ? now + wait : 0);
  }
}

void running_tasks_machine::on(const ev::recover_member& e, millis now,
                               ev::events& out) {
  ev::member_recovered r{e.node, {}, e.announce};
  for (const auto& task_id : running_.run_by(e.node)) {
    const auto* w = running_.find_watched(task_id);
    if (w == nullptr)
      continue;
    requeue(task_id, w->attempt + 1, now, out);
    r.requeued.push_back(task_id);
  }
  out.push_back(std::move(r));
}

void running_tasks_machine::report_end(const std::string& task_id,
                                       const wire::TaskState& s, millis now,
                                       ev::events& out) {
  wire::OpId none;
  // Not urgent for anyone: it may ride with the node's next claim.
  out.push_back(ev::originate{make_info(task_id, s, now, &none), false,
                              cfg_.finished_hold_ms});
}

void running_tasks_machine::requeue(const std::string& task_id,
                                    std::uint32_t next_attempt, millis now,
                                    ev::events& out, millis not_before) {
  ++counters_.requeues;
  wire::OpId none;
  out.push_back(ev::originate{
    make_info(task_id, ready_state(next_attempt, not_before), now, &none)});
}

millis running_tasks_machine::retry_wait(std::uint32_t failed_attempt,
                                         millis task_backoff) {
  auto base = task_backoff > 0 ? task_backoff : cfg_.retry_backoff_ms;
  if (base <= 0)
    return 0;
  // Doubled per failed attempt, capped; then "equal jitter": half fixed,
  // half drawn, so every retry waits at least half its backoff.
  auto wait = base;
  for (std::uint32_t i = 1; i < failed_attempt && wait < cfg_.retry_backoff_max_ms; ++i)
    wait *= 2;
  wait = std::min(wait, cfg_.retry_backoff_max_ms);
  auto half = wait / 2;
  return wait - half
         + static_cast<millis>(rng_() % static_cast<std::uint64_t>(half + 1));
}

void running_tasks_machine::tick(millis now, ev::events& out) {
  for (auto n = named_.begin(); n != named_.end();)
    n = n->second.forget_at <= now ? named_.erase(n) : std::next(n);
  // It ticks at once while anything runs: a gap of a heartbeat interval
  // means this process did not run, not that the executors went silent.
  if (running_.executing() == 0 && running_.watched_count() == 0)
    pauses_.rest();
  else if (auto paused = pauses_.gap(now); paused > 0)
    running_.postpone(paused);
  for (auto& [task_id, x] : running_.executions())
    mark_start(task_id, x, now, out);
  for (const auto& task_id :
       running_.heartbeats_due(now, cfg_.running_interval_ms)) {
    const auto* x = running_.mine(task_id);
    wire::TaskState s;
    s.set_phase(wire::RUNNING);
    s.set_attempt(x->attempt);
    *s.mutable_claim() = x->claim;
    out.push_back(ev::broadcast{make_info(task_id, s, now, nullptr),
                                cfg_.running_hold_ms()});
    ++counters_.running_heartbeats;
  }
  for (const auto& task_id : running_.overdue(now)) {
    const auto* w = running_.find_watched(task_id);
    if (w == nullptr)
      continue;
    if (cfg_.requeue_confirm_ms > 0 && w->asked < cfg_.requeue_questions) {
      // Ask the executor alone first: if the task ended and this replica
      // missed it, its answer (ALREADY_FINISHED_TASK) ends the watch.
      out.push_back(ev::send_to{w->node, make_do_you_know(task_id, true)});
      running_.asked(task_id, now + cfg_.requeue_confirm_ms);
      ++counters_.executors_asked;
      continue;
    }
    requeue(task_id, w->attempt + 1, now, out);
  }
}

running_tasks_machine make_running_tasks_machine(const machine_config& c) {
  return running_tasks_machine(
    c.node_id, c.queue, subsystem_seed(c.seed, station::running_tasks));
}

} // namespace dice
