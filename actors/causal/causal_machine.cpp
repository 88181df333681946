#include "causal/causal_machine.hpp"

#include <algorithm>
#include <optional>

#include "common/hashes.hpp"

namespace dice {

causal_machine::causal_machine(std::string self_id, causal_config cfg)
  : self_(std::move(self_id)), cfg_(cfg) {
  live_.insert(self_);
}

void causal_machine::on_view(std::vector<std::string> live) {
  std::set<std::string> now(live.begin(), live.end());
  now.insert(self_);
  // A peer that went silent is still owed what it lacks: it may be on the
  // other side of a partition and come back (log_limit bounds what waits).
  // What it had delivered is known at least from the last complete round
  // it was in; a peer that left before one completed is owed everything.
  for (const auto& id : live_)
    if (!now.count(id))
      departed_.emplace(id, stable_members_.count(id) ? stable_ : digest{});
  live_ = std::move(now);
  complete_round(); // a peer that left may have been the last one awaited
  prune();
}

causal_machine::digest causal_machine::lower_of(const digest& a, const digest& b) {
  digest out;
  auto j = b.begin();
  for (const auto& [origin, seq] : a) {
    while (j != b.end() && j->first < origin)
      ++j;
    if (j != b.end() && j->first == origin)
      out.emplace_back(origin, std::min(seq, j->second));
  }
  return out;
}

void causal_machine::complete_round() {
  for (const auto& id : live_)
    if (id != self_ && !round_heard_.count(id))
      return;
  if (round_heard_.empty())
    return; // alone: prune() needs no round
  stable_ = std::move(round_min_);
  stable_members_ = std::move(round_heard_);
  round_min_.clear();
  round_heard_.clear();
  prune_due_ = true;
}

std::uint64_t causal_machine::stamp_of(const wire::CausalEvent& e) {
  // Read in place, not built into a clock: every node reads every event's
  // stamp, one entry per publisher. A repeated entry: the last one counts.
  std::uint64_t seq = 0;
  for (const auto& v : e.clock())
    if (v.origin() == e.origin())
      seq = v.seq();
  return seq;
}

std::uint64_t causal_machine::delivered_in(const digest& d,
                                          const std::string& origin) {
  auto i = std::lower_bound(d.begin(), d.end(), origin,
                            [](const auto& e, const std::string& o) {
                              return e.first < o;
                            });
  return i != d.end() && i->first == origin ? i->second : 0;
}

causal_delivery causal_machine::publish(const std::string& topic,
                                        const std::string& data, millis now) {
  ++published_;
  wire::CausalEvent e;
  e.set_origin(self_);
  e.set_topic(topic);
  e.set_data(data);
  e.set_time_ms(now);
  auto ts = vc_;
  ts.increment(self_);
  for (const auto& [k, v] : ts.entries()) {
    auto* entry = e.add_clock();
    entry->set_origin(k);
    entry->set_seq(v);
  }
  deliver(e);
  wire::Message m;
  *m.mutable_causal_event() = e;
  outbox_.push_back({std::string{}, std::move(m)});
  if (!next_sync_)
    next_sync_ = now + cfg_.sync_ms;
  return fresh_.back();
}

bool causal_machine::deliverable(const wire::CausalEvent& e) const {
  if (stamp_of(e) != vc_.get(e.origin()) + 1)
    return false;
  for (const auto& v : e.clock())
    if (v.origin() != e.origin() && v.seq() > vc_.get(v.origin()))
      return false;
  return true;
}

void causal_machine::deliver(const wire::CausalEvent& e) {
  auto seq = vc_.increment(e.origin());
  causal_delivery d{++index_, e.origin(), seq, e.topic(), e.data(), e.time_ms()};
  recent_.push_back(d);
  while (recent_.size() > cfg_.delivered_keep)
    recent_.pop_front();
  fresh_.push_back(std::move(d));
  std::uint64_t sum = 0;
  for (const auto& v : e.clock())
    sum += v.seq();
  log_.emplace(key{e.origin(), seq}, logged_event{e.SerializeAsString(), sum});
  while (log_.size() > cfg_.log_limit)
    log_.erase(log_.begin()); // a peer that far behind cannot catch up
}

void causal_machine::on_event(const std::string&, const wire::CausalEvent& e,
                              millis now) {
  auto seq = stamp_of(e);
  if (e.origin().empty() || seq == 0 || e.origin() == self_)
    return;
  if (seq <= vc_.get(e.origin()) || held_.count({e.origin(), seq})) {
    ++duplicates_;
    return;
  }
  if (held_.size() >= cfg_.held_limit) {
    ++overflowed_; // sent again later, once the gap before it is filled
    return;
  }
  held_.emplace(key{e.origin(), seq}, e);
  // Deliver whatever became deliverable, until nothing more does.
  for (bool progress = true; progress;) {
    progress = false;
    for (auto it = held_.begin(); it != held_.end();) {
      if (it->first.second <= vc_.get(it->first.first)) {
        it = held_.erase(it); // delivered meanwhile by another copy
        continue;
      }
      if (deliverable(it->second)) {
        deliver(it->second);
        it = held_.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
  }
  if (!next_sync_)
    next_sync_ = now + cfg_.sync_ms;
}

void causal_machine::on_digest(const std::string& from, const wire::CausalDigest& d,
                               millis now) {
  if (!next_sync_) // a node that lost every event learns of them here
    next_sync_ = now;
  digest theirs;
  theirs.reserve(static_cast<std::size_t>(d.delivered_size()));
  bool sorted = true;
  for (const auto& v : d.delivered()) {
    if (v.seq() == 0)
      continue;
    if (v.seq() > vc_.get(v.origin()))
      lacking_ = true; // our next digest says so, and they resend
    if (!theirs.empty() && !(theirs.back().first < v.origin()))
      sorted = false;
    theirs.emplace_back(v.origin(), v.seq());
  }
  if (!sorted) {
    // Not as a node writes it (from its clock, in order): an origin
    // named twice counts by its last entry.
    std::stable_sort(theirs.begin(), theirs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    digest unique;
    for (auto& e : theirs)
      if (!unique.empty() && unique.back().first == e.first)
        unique.back().second = e.second;
      else
        unique.push_back(std::move(e));
    theirs = std::move(unique);
  }
  // Send what they lack, a bounded number per digest, causes first: by
  // the sum of each event's clock, which grows along every causal chain.
  // In the log's (origin, seq) order, a peer holding back many events of
  // origins that sort early would be sent those again and again, and never
  // the event of a later origin they all wait for.
  std::vector<std::pair<std::uint64_t, const std::string*>> lacked;
  auto before = lacked_last_.find(from);
  digest lacks_now; // what of this log they lack, per origin: their entry
  auto round = std::to_string(now / cfg_.sync_ms);
  // Whether this node is one of the few that resend `origin`'s events to
  // `from` now: each picks itself from its own hash, no view to agree on.
  // The log is sorted by origin: the hashes are taken once per origin.
  std::string picked_for;
  bool picked = false, picked_wider = false;
  std::optional<std::uint64_t> had_before; // their seq, if they lacked then
  auto resends = [&](const std::string& origin, std::uint64_t seq) {
    if (cfg_.resenders == 0 || origin == self_)
      return true;
    if (picked_for != origin) {
      picked_for = origin;
      auto key = from + '\n' + origin + '\n' + round;
      picked = picks_itself(key, self_, live_.size(), cfg_.resenders);
      picked_wider = picks_itself(key, self_, live_.size(), 4 * cfg_.resenders);
      had_before.reset();
      if (before != lacked_last_.end()) {
        const auto& was = before->second;
        auto i = std::lower_bound(was.begin(), was.end(), origin,
                                  [](const auto& e, const std::string& o) {
                                    return e.first < o;
                                  });
        if (i != was.end() && i->first == origin)
          had_before = i->second;
      }
    }
    // Named in their last digest's lacks, and still lacked: seen twice.
    bool lacked_before = had_before && *had_before < seq;
    return lacked_before ? picked_wider : picked;
  };
  auto t = theirs.cbegin(); // both sorted by origin: walked side by side
  for (const auto& [k, e] : log_) {
    while (t != theirs.cend() && t->first < k.first)
      ++t;
    bool named = t != theirs.cend() && t->first == k.first;
    if (named && k.second <= t->second)
      continue;
    if (lacks_now.empty() || lacks_now.back().first != k.first)
      lacks_now.emplace_back(k.first, named ? t->second : 0);
    if (!resends(k.first, k.second))
      continue;
    lacked.emplace_back(e.clock_sum, &e.bytes);
  }
  auto n = std::min(lacked.size(), cfg_.resend_limit);
  std::partial_sort(lacked.begin(), lacked.begin() + static_cast<std::ptrdiff_t>(n),
                    lacked.end(), [](const auto& a, const auto& b) {
                      return a.first < b.first;
                    });
  for (std::size_t i = 0; i < n; ++i) {
    wire::Message m;
    m.mutable_causal_event()->ParseFromString(*lacked[i].second);
    outbox_.push_back({from, std::move(m)});
    ++resent_;
  }
  if (lacks_now.empty())
    lacked_last_.erase(from);
  else
    lacked_last_[from] = std::move(lacks_now);
  if (from == self_ || !live_.count(from))
    return; // in no round until the view has it
  if (departed_.erase(from) > 0) {
    // Back: what it has now counts, not what it had in the last round.
    stable_members_.erase(from);
    prune_due_ = true;
  }
  round_min_ = round_heard_.empty() ? std::move(theirs) : lower_of(round_min_, theirs);
  round_heard_.insert(from);
  if (!stable_members_.count(from))
    prune_due_ = true; // a newcomer's digest may be the one awaited
  complete_round(); // pruned at the next tick, once for all digests by then
}

void causal_machine::prune() {
  // An event every live peer has delivered (by the last complete round)
  // and every departed one had will never be asked for again. Alone,
  // nobody is owed anything but what the departed lack.
  digest floor;
  if (live_.size() == 1)
    for (const auto& [origin, seq] : vc_.entries())
      floor.emplace_back(origin, seq);
  else
    floor = stable_;
  // A live peer the last round did not hear (it joined or came back
  // since) counts by its digest in this round, and before it sent one
  // it may lack anything.
  bool newcomer = false, unheard = false;
  for (const auto& id : live_)
    if (id != self_ && !stable_members_.count(id)) {
      newcomer = true;
      unheard = unheard || !round_heard_.count(id);
    }
  if (unheard)
    floor.clear();
  else if (newcomer) // round_min_ covers every peer heard in the round
    floor = lower_of(floor, round_min_);
  for (const auto& [id, had] : departed_)
    floor = lower_of(floor, had);
  for (auto it = log_.begin(); it != log_.end();)
    it = it->first.second <= delivered_in(floor, it->first.first) ? log_.erase(it)
                                                                 : std::next(it);
}

void causal_machine::tick(millis now) {
  if (prune_due_) {
    prune_due_ = false;
    prune();
  }
  if (next_sync_ && now < *next_sync_)
    return;
  bool news = index_ != digest_index_ || lacking_ || !held_.empty();
  if (!news && next_sync_ && ++quiet_syncs_ < cfg_.quiet_digest_every) {
    next_sync_ = now + cfg_.sync_ms;
    return;
  }
  quiet_syncs_ = 0;
  lacking_ = false;
  digest_index_ = index_;
  wire::Message m;
  auto* d = m.mutable_causal_digest();
  for (const auto& [k, v] : vc_.entries()) {
    auto* entry = d->add_delivered();
    entry->set_origin(k);
    entry->set_seq(v);
  }
  outbox_.push_back({std::string{}, std::move(m)});
  next_sync_ = now + cfg_.sync_ms;
}

std::vector<causal_send> causal_machine::take_outbox() {
  std::vector<causal_send> out;
  out.swap(outbox_);
  return out;
}

std::vector<causal_delivery> causal_machine::take_delivered() {
  std::vector<causal_delivery> out;
  out.swap(fresh_);
  return out;
}

} // namespace dice
