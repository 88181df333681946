#include "ready_queue/ready_queue_machine.hpp"

#include <algorithm>
#include <utility>

#include "ready_queue/claim_matching.hpp"
#include "vocabulary/heir.hpp"
#include "vocabulary/queue_messages.hpp"

namespace dice {

ready_queue_machine::ready_queue_machine(std::string id, queue_config cfg)
  : id_(std::move(id)), cfg_(std::move(cfg)), ready_(id_), turn_order_{id_} {
}

void ready_queue_machine::on(const ev::task_changed& e, millis now,
                             ev::events&) {
  const auto& s = e.state;
  forget_times(e.task_id);
  // A schedule's record is never run: its ticks are.
  if (e.spec && s.phase() == wire::READY && !e.spec->has_schedule()) {
    auto& t = tasks_[e.task_id];
    if (!t.spec || t.attempt != s.attempt())
      t = ready_task{e.spec, s.attempt(), now};
    t.spec = e.spec;
    if (e.spec->locks_size() > 0)
      with_locks_.insert(e.task_id);
    else
      with_locks_.erase(e.task_id);
    t.not_before = std::max<millis>(e.spec->not_before_ms(), s.not_before_ms());
    if (e.spec->expires_ms() > 0)
      expiring_.emplace(e.spec->expires_ms(), e.task_id);
    // Its parents' ends fill its inputs; or its delay or backoff runs.
    bool parents = waits_for_parents(*e.spec);
    if (parents || t.not_before > now) {
      // Not claimable yet, though an earlier attempt (whose claim this node
      // missed) or an earlier re-queue of this one may have been.
      ready_.erase(e.task_id);
      common_.erase(e.task_id);
      if (!parents)
        waiting_.emplace(t.not_before, e.task_id);
    } else {
      make_claimable(e.task_id, t);
    }
  } else {
    tasks_.erase(e.task_id);
    with_locks_.erase(e.task_id);
    ready_.erase(e.task_id);
    common_.erase(e.task_id);
  }
  // Nodes known to be executing do not compete for claims.
  auto was = runner_.find(e.task_id);
  bool other = s.phase() == wire::RUNNING && s.claim().node_id() != id_;
  if (was != runner_.end() && (!other || was->second != s.claim().node_id())) {
    if (--per_node_[was->second] == 0)
      per_node_.erase(was->second);
    runner_.erase(was);
    was = runner_.end();
  }
  if (other && was == runner_.end()) {
    runner_[e.task_id] = s.claim().node_id();
    ++per_node_[s.claim().node_id()];
  }
  changed_ = true;
}

void ready_queue_machine::on(const ev::live_nodes& e, millis,
                             ev::events&) {
  live_ = std::max<std::size_t>(e.count, 1);
  peer_seats_ = e.peer_seats;
  std::vector<std::string> nodes{id_};
  for (const auto& [node, said] : peer_seats_)
    nodes.push_back(node);
  turn_order_ = in_turn_order(std::move(nodes));
  changed_ = true;
}

void ready_queue_machine::on(const ev::replica_restored& e, millis,
                             ev::events&) {
  hold_until_ = std::max(hold_until_, e.hold_until);
  changed_ = true;
}

void ready_queue_machine::on(const ev::free_slots& e, millis,
                             ev::events&) {
  free_ = e.count;
  free_run_ = std::min(e.slots, e.count);
  free_since_ = e.free_since;
  claimed_ = std::set<std::string>(e.claimed.begin(), e.claimed.end());
  changed_ = true;
}

void ready_queue_machine::on(const ev::runner_changed& e, millis, ev::events&) {
  cfg_.runner = e.runner;
  for (const auto& [task_id, t] : tasks_) {
    if (!common_.contains(task_id))
      continue; // not claimable yet (delayed, backing off)
    if (cfg_.can_run(*t.spec))
      ready_.insert(task_id, t.spec->priority(), t.attempt > 1);
    else
      ready_.erase(task_id);
  }
  changed_ = true;
}

void ready_queue_machine::make_claimable(const std::string& task_id,
                                         const ready_task& t) {
  // A re-queued task goes ahead of first attempts of its priority. One
  // this node cannot run stays out of its own walk (not of the common
  // order, which every node must compute alike).
  if (cfg_.can_run(*t.spec))
    ready_.insert(task_id, t.spec->priority(), t.attempt > 1);
  common_.insert(task_id, t.spec->priority(), t.attempt > 1, fifo_key(*t.spec));
}

std::uint64_t ready_queue_machine::fifo_key(const wire::TaskSpec& spec) {
  // Milliseconds since 1970 in 42 bits (until 2109); the enqueuer's count
  // (mod 2^21) orders the tasks of one submit made in the same millisecond.
  constexpr int count_bits = 21;
  auto ms = static_cast<std::uint64_t>(std::clamp<std::int64_t>(
    spec.enqueue_time_ms(), 0, (std::int64_t{1} << 42) - 1));
  return (ms << count_bits)
         | (spec.created().seq() & ((std::uint64_t{1} << count_bits) - 1));
}

void ready_queue_machine::forget_times(const std::string& task_id) {
  auto t = tasks_.find(task_id);
  if (t == tasks_.end())
    return;
  waiting_.erase({t->second.not_before, task_id});
  expiring_.erase({t->second.spec->expires_ms(), task_id});
}

void ready_queue_machine::pass_time(millis now, ev::events& out) {
  // Delays and backoffs that ended: the tasks may be claimed from now on.
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    auto task_id = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    make_claimable(task_id, tasks_.at(task_id));
    changed_ = true;
  }
  // Expiries that passed: nobody may claim the task any more. Its enqueuer
  // says it EXPIRED at once; any other node a re-queue timeout later, in
  // case the enqueuer is gone (the state is the same whoever says it).
  for (auto x = expiring_.begin(); x != expiring_.end() && x->first <= now;) {
    const auto& [expires, task_id] = *x;
    ready_.erase(task_id);
    common_.erase(task_id);
    const auto& t = tasks_.at(task_id);
    bool mine = t.spec->enqueuer() == id_;
    if (!mine && now < expires + cfg_.running_timeout_ms) {
      ++x;
      continue;
    }
    wire::OpId none;
    out.push_back(ev::originate{
      make_info(task_id, expired_state(t.attempt, expires), now, &none)});
    ++counters_.expired;
    waiting_.erase({t.not_before, task_id});
    with_locks_.erase(task_id);
    tasks_.erase(task_id);
    x = expiring_.erase(x);
  }
}

std::optional<millis> ready_queue_machine::next_due() const {
  std::optional<millis> due;
  auto at = [&](millis t) { due = due ? std::min(*due, t) : t; };
  if (free_ > 0) {
    if (changed_)
      at(0);
    else if (later_)
      at(*later_);
    if (!waiting_.empty())
      at(waiting_.begin()->first);
  }
  // Expiries are told whether or not a slot is free here: this node's own
  // tasks at their expiry, the others' a re-queue timeout later.
  if (!expiring_.empty()) {
    auto last = expiring_.begin()->first + cfg_.running_timeout_ms;
    for (auto x = expiring_.begin(); x != expiring_.end() && x->first <= last; ++x) {
      bool mine = tasks_.at(x->second).spec->enqueuer() == id_;
      at(mine ? x->first : x->first + cfg_.running_timeout_ms);
    }
  }
  return due;
}

void ready_queue_machine::tick(millis now, ev::events& out) {
  changed_ = false;
  later_.reset();
  pass_time(now, out);
  if (free_ == 0 || tasks_.empty())
    return;
  if (now < hold_until_) {
    later_ = hold_until_;
    return;
  }
  // Tasks waiting for cluster-wide locks this node does not hold are
  // passed over, and looked at again shortly.
  auto skip = claimed_;
  if (locks_blocked(skip))
    later_ = now + cfg_.lock_recheck_ms;
  // The scan above covers the head of this node's own walk; the common
  // matching and the walk may reach further, so every task offered is
  // checked too: none leaves without the locks it names.
  auto lock_waits = [&](const std::string& id) {
    const auto& t = tasks_.at(id);
    if (!cfg_.take_locks || t.spec->locks_size() == 0
        || cfg_.take_locks(*t.spec, t.attempt))
      return false;
    later_ = now + cfg_.lock_recheck_ms;
    return true;
  };
  std::vector<std::pair<std::string, bool>> offers; // (task, matched)
  for (auto& id : matched(skip))
    if (!lock_waits(id))
      offers.emplace_back(std::move(id), true);
  for (const auto& o : offers)
    skip.insert(o.first);
  while (offers.size() < free_) {
    std::optional<millis> later;
    // Offers fill the free slots first, then the prefetch seats.
    auto next = next_claim(now, free_since_, offers.size() < free_run_, skip,
                           later);
    if (later)
      later_ = later_ ? std::min(*later_, *later) : *later;
    if (!next)
      break;
    skip.insert(*next);
    if (!lock_waits(*next))
      offers.emplace_back(*next, false);
  }
  for (const auto& o : offers)
    claimed_.insert(o.first);
  free_ -= offers.size();
  free_run_ -= std::min(free_run_, offers.size());
  for (const auto& [id, is_match] : offers) {
    const auto& t = tasks_.at(id);
    // The first attempt is ready from its enqueue on; a re-queued one from
    // when this node learnt of the re-queue.
    millis ready = t.since;
    if (t.attempt <= 1 && t.spec->enqueue_time_ms() > 0)
      ready = t.spec->enqueue_time_ms();
    ready = std::max(ready, t.not_before);
    out.push_back(ev::task_offer{id, t.attempt, t.spec, ready, is_match});
  }
}

bool ready_queue_machine::locks_blocked(std::set<std::string>& skip) const {
  if (!cfg_.take_locks || with_locks_.empty())
    return false;
  // The first tasks of the walk, as many as a tick could offer and then
  // some: a head of tasks waiting for one lock must not hide the others.
  constexpr std::size_t scan = 64;
  bool blocked = false;
  for (const auto& id : ready_.next(skip.size() + scan)) {
    if (skip.count(id))
      continue;
    const auto& t = tasks_.at(id);
    if (t.spec->locks_size() > 0 && !cfg_.take_locks(*t.spec, t.attempt)) {
      skip.insert(id);
      blocked = true;
    }
  }
  return blocked;
}

std::pair<std::size_t, std::size_t>
ready_queue_machine::free_seats_of(const std::string& node) const {
  if (node == id_)
    return {free_run_, free_};
  auto p = peer_seats_.find(node);
  if (p == peer_seats_.end() || p->second.draining)
    return {0, 0}; // gone, or drained: no seat there
  // A peer's claims fill its slots first, then its prefetch seats.
  auto i = per_node_.find(node);
  std::size_t held = i == per_node_.end() ? 0 : i->second;
  std::size_t n = std::max<std::uint32_t>(p->second.slots, 1);
  std::size_t all = n + p->second.prefetch;
  return {n > held ? n - held : 0, all > held ? all - held : 0};
}

std::vector<std::string>
ready_queue_machine::matched(const std::set<std::string>& skip) const {
  if (cfg_.claim_stagger_ms == 0 || free_ == 0)
    return {}; // no stagger: every free seat claims the head of its walk
  // The first nodes with a free seat, in the order of turns, take part:
  // the matching's cost per tick stays bounded however large the cluster.
  // A node further on is given nothing and claims by the stagger.
  constexpr std::size_t matched_nodes = 64;
  std::map<std::string, std::size_t> slots;
  std::map<std::string, std::size_t> ahead;
  std::size_t seats = 0;
  std::size_t taking = 0;
  for (auto n = turn_order_.begin(); n != turn_order_.end() && taking < matched_nodes; ++n) {
    const auto& node = *n;
    auto [run, free] = free_seats_of(node);
    taking += free > 0 ? 1 : 0;
    if (run > 0)
      slots[node] = run;
    if (free > run)
      ahead[node] = free - run;
    seats += free;
  }
  // Candidates: the first tasks in the common order, a few more than the
  // free seats so that each node has some choice of its own.
  constexpr std::size_t least_candidates = 64;
  auto classes = common_.next_by_class(std::max(seats, least_candidates), skip);
  auto first = owners(classes);
  // An enqueuer beyond those nodes still takes its own tasks first (it
  // claims them as it submits them): the others must leave them to it.
  for (const auto& [task, enqueuer] : first)
    if (slots.count(enqueuer) == 0)
      if (auto run = free_seats_of(enqueuer).first; run > 0)
        slots[enqueuer] = run;
  if (slots.count(id_) == 0 && ahead.count(id_) == 0)
    return {};
  auto mine = match_seats(std::move(classes), slots, ahead, id_, first);
  // Given a task it cannot run, this node leaves it to the stagger of the
  // nodes that can.
  if (cfg_.runner)
    mine.erase(std::remove_if(mine.begin(), mine.end(),
                              [&](const std::string& t) {
                                return !cfg_.can_run(*tasks_.at(t).spec);
                              }),
               mine.end());
  return mine;
}

task_owners ready_queue_machine::owners(
  const std::vector<std::vector<std::string>>& classes) const {
  task_owners owners;
  if (classes.empty() || cfg_.submit_claim_ms < 0)
    return owners;
  std::map<std::string, std::size_t> left; // each enqueuer's free slots
  for (const auto& id : classes.front()) {
    const auto& t = tasks_.at(id);
    // A child goes to its heir (heir.hpp), a new task to its enqueuer.
    auto heir = heir_of(*t.spec).first;
    const auto& enqueuer = heir.empty() ? t.spec->enqueuer() : heir;
    if (t.attempt > 1 || enqueuer.empty())
      continue;
    // Only an enqueuer that runs the task takes it first: every node must
    // judge that alike, from what the enqueuer advertises.
    bool runs = false;
    if (enqueuer == id_) {
      runs = cfg_.can_run(*t.spec);
    } else if (auto p = peer_seats_.find(enqueuer); p != peer_seats_.end()) {
      const auto& r = p->second.runner;
      runs = !r.advertised() || r.runs(*t.spec);
    }
    if (!runs)
      continue;
    auto l = left.find(enqueuer);
    if (l == left.end())
      l = left.emplace(enqueuer, free_seats_of(enqueuer).first).first;
    if (l->second == 0)
      continue;
    --l->second;
    owners.emplace(id, enqueuer);
  }
  return owners;
}

std::size_t ready_queue_machine::idle_nodes() const {
  auto busy = std::min(per_node_.size(), live_ - 1);
  return live_ - busy;
}

std::optional<std::string>
ready_queue_machine::next_claim(millis now, millis free_since, bool slot,
                                const std::set<std::string>& skip,
                                std::optional<millis>& later) const {
  // The first few tasks of the walk suffice: later ones rank worse for us.
  constexpr std::size_t lookahead = 4;
  auto walk = ready_.next(lookahead + skip.size());
  walk.erase(std::remove_if(walk.begin(), walk.end(),
                            [&](const std::string& t) { return skip.count(t) > 0; }),
             walk.end());
  if (walk.empty())
    return std::nullopt;
  auto idle = idle_nodes();
  if (cfg_.claim_stagger_ms == 0 || idle <= 1)
    return walk.front(); // nobody to collide with
  // This node's rank for a task among `idle` nodes, estimated from its own
  // rendezvous hash alone (hashes are uniform): no need to hash every peer.
  const auto priority = tasks_.at(walk.front()).spec->priority();
  for (std::size_t i = 0; i < walk.size() && i < lookahead; ++i) {
    const auto& t = tasks_.at(walk[i]);
    if (t.spec->priority() != priority)
      break; // priority first, whatever the stagger
    // From when it could first be claimed here: a delayed task or a
    // retry's backoff releases it on every node at once.
    auto from = std::max({t.since, t.not_before, free_since});
    auto u = static_cast<double>(rendezvous_hash(walk[i], id_) >> 11)
             * 0x1.0p-53;
    // One stagger first: the node the matching chose claims before. A
    // prefetch seat (every slot here busy) after every idle slot: its task
    // would wait behind a running one.
    auto turns = 1.0 + u * static_cast<double>(idle);
    if (!slot)
      turns += 1.0 + static_cast<double>(idle);
    auto wait = static_cast<millis>(turns * static_cast<double>(cfg_.claim_stagger_ms));
    if (now >= from + wait)
      return walk[i];
    later = later ? std::min(*later, from + wait) : from + wait;
  }
  return std::nullopt;
}

ready_queue_machine make_ready_queue_machine(const machine_config& c) {
  return ready_queue_machine(c.node_id, c.queue);
}

} // namespace dice
