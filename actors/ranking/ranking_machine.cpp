#include "ranking/ranking_machine.hpp"

#include <algorithm>
#include <utility>

#include "vocabulary/heir.hpp"
#include "vocabulary/queue_messages.hpp"
#include "known_tasks/task_state.hpp"
#include "vocabulary/ranking.hpp"
#include "common/hashes.hpp"

namespace dice {

ranking_machine::ranking_machine(std::string id, queue_config cfg)
  : id_(std::move(id)), cfg_(std::move(cfg)),
    window_(cfg_.matched_claim_window_ms) {
  if (cfg_.prefetch_auto)
    auto_prefetch_.emplace(adaptive_prefetch_config{cfg_.prefetch});
  counters_.matched_window_ms = static_cast<std::uint64_t>(window_);
  counters_.prefetch = prefetch();
  info_.set_battery(cfg_.battery);
  info_.set_device_class(cfg_.device_class);
}

bool ranking_machine::names(const wire::TaskState& s, std::uint32_t attempt,
                            const wire::Claim& claim) const {
  return s.phase() == wire::RUNNING && s.attempt() == attempt
         && compare_claims(s.claim(), claim) == 0;
}

ranking_machine::claim_standing
ranking_machine::standing(const wire::TaskState& s,
                          const claim_ticket& t) const {
  if (names(s, t.attempt, t.claim))
    return claim_standing::named;
  if (is_terminal(s.phase()) || s.attempt() > t.attempt
      || (s.attempt() == t.attempt && s.phase() == wire::RUNNING
          && better_claim(s.claim(), t.claim)))
    return claim_standing::beaten;
  // Below our claim (still READY, or a worse claim merged first): merging
  // our own DEQUEUE will name it.
  return claim_standing::unmerged;
}

void ranking_machine::learn(const std::string& task_id,
                            const wire::TaskState& s, millis now) {
  auto p = pending_.find(task_id);
  if (p == pending_.end())
    return;
  p->second.state = s;
  auto st = standing(s, p->second);
  if (st == claim_standing::beaten) {
    // Lost the lottery: the slot is free again.
    pending_.erase(p);
    ++counters_.claims_lost;
  } else if (st == claim_standing::named && p->second.window_over) {
    p->second.window_end = now; // the window has passed: execute
  }
}

void ranking_machine::on(const ev::task_changed& e, millis now,
                         ev::events& out) {
  note_birth(now);
  const auto& s = e.state;
  learn(e.task_id, s, now);
  learn_window(e.task_id, s, now);
  announce(now, out);
  if (s.phase() != wire::RUNNING || s.claim().node_id() != id_)
    return;
  // Our claim, not waiting, made before this incarnation began: the
  // previous one took the execution down with it. (Every claim of this
  // incarnation, and every reclaim of one, is dated from its birth on.)
  if (pending_.count(e.task_id) == 0
      && s.claim().dequeue_time_ms() < born_) {
    ++counters_.requeues;
    wire::OpId none;
    out.push_back(ev::originate{
      make_info(e.task_id, ready_state(s.attempt() + 1), now, &none)});
  }
}

void ranking_machine::on(const ev::claim_heard& e, millis now,
                         ev::events& out) {
  // A claim that lost to ours: its claimer may not have heard ours (lost
  // broadcast) and would execute at the end of its window. Tell it now.
  const auto& d = e.claim;
  const auto& s = e.state;
  if (d.claim().node_id() == id_) {
    // Merged, yet it changed nothing: the task had moved on before.
    learn(d.task_id(), s, now);
    announce(now, out);
    return;
  }
  if (s.phase() != wire::RUNNING || s.attempt() != d.attempt()
      || compare_claims(s.claim(), d.claim()) >= 0)
    return;
  // The merged state names our claim: we are the winner.
  bool ours = s.claim().node_id() == id_;
  // The winner may not hear the losing claim, or its answer may be lost:
  // a few other nodes that know the better claim answer too.
  if (!ours && !helps(d.task_id(), d.claim().node_id()))
    return;
  // Sent to the claimer alone: the others heard the winning claim or will
  // hear its RUNNING heartbeats.
  out.push_back(ev::send_to{d.claim().node_id(),
                            make_info(d.task_id(), s, now, nullptr)});
  ++counters_.defenses;
}

bool ranking_machine::helps(const std::string& task_id,
                            const std::string& claimer) const {
  return picks_itself(task_id, id_ + "/" + claimer, live_, cfg_.claim_helpers);
}

void ranking_machine::on(const ev::task_offer& e, millis now,
                         ev::events& out) {
  note_birth(now);
  if (announced_ && *announced_ > 0)
    --*announced_; // ready_queue counted this offer off its free slots
  // The slot was taken meanwhile, or the task expired since the offer
  // (ready_queue drops it, and says so, at its next tick).
  if (busy() >= capacity() || pending_.count(e.task_id) > 0
      || handed_.count(e.task_id) > 0
      || (e.spec->expires_ms() > 0 && now >= e.spec->expires_ms())) {
    announce(now, out);
    return;
  }
  auto first = e.matched ? first_claim_time(e, now) : std::nullopt;
  auto c = make_claim(id_, info_, *e.spec, first.value_or(now));
  if (cfg_.objects_held) // saturating: a claim's count is 32 bits
    c.set_data_objects(static_cast<std::uint32_t>(std::min<std::uint64_t>(
      std::uint64_t{c.data_objects()} + cfg_.objects_held(*e.spec), UINT32_MAX)));
  auto window = first ? 0 : e.matched ? window_ : cfg_.claim_window_ms;
  claim_ticket t{e.attempt, c, now + window, e.ready_ms, e.spec, {}};
  t.matched_window = e.matched && window > 0;
  ++counters_.claims;
  if (e.matched)
    ++counters_.matched_claims;
  wire::OpId none;
  auto dequeue = make_dequeue(e.task_id, e.attempt, c, none);
  if (window == 0) {
    // Not waiting for rivals: run now. The state our claim will merge to
    // is what the execution reports against.
    t.state = *state_of(dequeue);
    out.push_back(ev::originate{std::move(dequeue)});
    execute(e.task_id, t, out);
  } else {
    out.push_back(ev::originate{std::move(dequeue)});
    pending_[e.task_id] = std::move(t);
  }
  announce(now, out);
}

std::optional<millis>
ranking_machine::first_claim_time(const ev::task_offer& e, millis now) const {
  // Our own task, offered soon after we enqueued it (not delayed): no rival
  // can claim before it hears the ENQUEUE, so a claim dated at the ENQUEUE
  // precedes or ties any rival's (criterion 3; a tie goes to the enqueuer,
  // criterion 5), and the common matching gives every other node
  // something else. Dated then, not when the offer came: the offer comes
  // at ready_queue's next tick, a millisecond or two later on a loaded
  // machine, when a rival's claim could already be dated. Never before
  // this incarnation's birth, which would read as a dead one's claim.
  const auto& spec = *e.spec;
  if (cfg_.submit_claim_ms < 0 || e.attempt > 1)
    return std::nullopt;
  // A schedule's tick is enqueued by every node whose turn comes before
  // it hears of the tick, each with an ENQUEUE of its own: two may do so
  // at once, so a rival can exist.
  if (!spec.scheduled_by().empty())
    return std::nullopt;
  auto dated = [&](millis at) { return std::max(at, born_); };
  // A child whose last parent ended here: the same, from that end, with a
  // few ms more for the end to pass through this node's own actors.
  if (auto [heir, ended] = heir_of(spec); !heir.empty()) {
    if (heir == id_ && now - ended <= cfg_.submit_claim_ms + heir_claim_extra_ms)
      return dated(ended);
    return std::nullopt;
  }
  if (spec.enqueuer() == id_ && spec.enqueue_time_ms() > 0
      && e.ready_ms == spec.enqueue_time_ms()
      && now - e.ready_ms <= cfg_.submit_claim_ms)
    return dated(e.ready_ms);
  return std::nullopt;
}

void ranking_machine::learn_window(const std::string& task_id,
                                   const wire::TaskState& s, millis now) {
  auto h = handed_.find(task_id);
  if (h == handed_.end() || !h->second.matched_clean)
    return;
  const auto& mine = h->second;
  if (s.phase() != wire::RUNNING || s.attempt() != mine.attempt
      || !better_claim(s.claim(), mine.claim))
    return;
  h->second.matched_clean = false;
  since_late_claim_ = 0;
  // Heard this long after our claim: a window that long would have let
  // ours lose before it started. At most doubled at once (one straggler
  // is no measure of the network) and never past the stagger's window.
  auto needed = now - mine.claim.dequeue_time_ms() + 1;
  if (needed <= window_)
    return;
  auto ceiling = std::max(cfg_.claim_window_ms, cfg_.matched_claim_window_ms);
  window_ = std::min({needed, std::max<millis>(2 * window_, window_ + 1), ceiling});
  counters_.matched_window_ms = static_cast<std::uint64_t>(window_);
}

void ranking_machine::on(const ev::execution_over& e, millis now,
                         ev::events& out) {
  auto h = handed_.find(e.task_id);
  // Every few executions no better claim came after, a millisecond off,
  // down to 1 ms: on a fast network the window shrinks to what it needs,
  // and a busy node's claims (whose windows a no-op task cannot hide) wait
  // less. Not within a while of a late rival's claim, though: a window
  // that has just proved one step too short would come down again at
  // once, and let the next rival in after our start (with 3 busy nodes,
  // shrinking every 8 clean executions regardless ran 2.3% of tasks
  // twice).
  constexpr std::uint32_t clean_per_ms = 8;
  constexpr std::uint32_t hold_after_late_claim = 512;
  constexpr millis least_window = 1;
  if (h != handed_.end() && h->second.matched_clean) {
    if (since_late_claim_ < hold_after_late_claim)
      ++since_late_claim_;
    if (since_late_claim_ >= hold_after_late_claim && ++clean_runs_ >= clean_per_ms) {
      clean_runs_ = 0;
      window_ = std::max(least_window, window_ - 1);
      counters_.matched_window_ms = static_cast<std::uint64_t>(window_);
    }
  }
  if (h != handed_.end())
    handed_.erase(h);
  if (auto_prefetch_ && e.ran_ms >= 0 && auto_prefetch_->ran(e.ran_ms)) {
    counters_.prefetch = prefetch();
    out.push_back(ev::prefetch_now{static_cast<std::uint32_t>(prefetch())});
  }
  announce(now, out);
}

void ranking_machine::on(const ev::live_nodes& e, millis, ev::events&) {
  live_ = e.count;
}

void ranking_machine::execute(const std::string& task_id,
                              const claim_ticket& t, ev::events& out) {
  handed_[task_id] = handed_claim{t.attempt, t.claim, t.matched_window};
  out.push_back(ev::start_execution{task_id, t.attempt, t.claim, t.spec,
                                    t.ready_ms, t.state});
}

void ranking_machine::end_windows(millis now, ev::events& out) {
  for (auto p = pending_.begin(); p != pending_.end();) {
    if (p->second.window_end > now) {
      ++p;
      continue;
    }
    auto st = standing(p->second.state, p->second);
    if (st == claim_standing::unmerged && !p->second.window_over) {
      // Our own claim has not come back through known_tasks yet; giving
      // the slot up now would re-queue the task once it does. Competing
      // claims heard before it are merged before it, so wait for it, up
      // to the running timeout, after which others re-queue the attempt.
      p->second.window_over = true;
      p->second.window_end = p->second.claim.dequeue_time_ms()
                             + cfg_.running_timeout_ms;
      ++p;
      continue;
    }
    auto task_id = p->first;
    auto t = std::move(p->second);
    p = pending_.erase(p);
    if (st != claim_standing::named) {
      ++counters_.claims_lost;
      continue;
    }
    execute(task_id, t, out);
  }
}

void ranking_machine::on(const ev::drain& e, millis now, ev::events& out) {
  draining_ = e.on;
  counters_.draining = e.on ? 1 : 0;
  announce(now, out);
}

void ranking_machine::announce(millis now, ev::events& out) {
  counters_.seats_held = busy();
  auto free = busy() >= capacity() ? 0 : capacity() - busy();
  if (free == 0)
    free_since_ = -1;
  else if (free_since_ < 0)
    free_since_ = now;
  if (announced_ == free)
    return;
  announced_ = free;
  ev::free_slots f;
  f.count = free;
  f.slots = draining_ || busy() >= cfg_.slots ? 0 : cfg_.slots - busy();
  f.free_since = free_since_;
  for (const auto& [task_id, t] : pending_)
    f.claimed.push_back(task_id);
  for (const auto& [task_id, h] : handed_)
    f.claimed.push_back(task_id);
  out.push_back(std::move(f));
}

void ranking_machine::refresh_battery(millis now) {
  if (!cfg_.battery_source || now < next_battery_read_)
    return;
  next_battery_read_ = now + std::max<millis>(1, cfg_.battery_refresh_ms);
  if (auto level = cfg_.battery_source())
    info_.set_battery(std::min<std::uint32_t>(*level, 100));
}

void ranking_machine::tick(millis now, ev::events& out) {
  refresh_battery(now);
  note_birth(now);
  end_windows(now, out);
  announce(now, out);
}

std::optional<millis> ranking_machine::next_due() const {
  std::optional<millis> due;
  if (cfg_.battery_source)
    due = next_battery_read_;
  for (const auto& [task_id, t] : pending_)
    due = due ? std::min(*due, t.window_end) : t.window_end;
  return due;
}

ranking_machine make_ranking_machine(const machine_config& c) {
  return ranking_machine(c.node_id, c.queue);
}

} // namespace dice
