#include "mutex/voting.hpp"

#include <algorithm>

namespace dice {

voting_mutex::voting_mutex(std::string self_id, mutex_config cfg)
  : mutex_state("voting", std::move(self_id), cfg) {
  members_.insert(self_);
}

std::size_t voting_mutex::quorum() const {
  return std::max(members_.size(), cfg_.voters) / 2 + 1;
}

void voting_mutex::born(millis now) {
  if (!abstain_until_)
    abstain_until_ = cfg_.abstain_at_start ? now + cfg_.reclaim_ms : now;
}

voting_mutex::key voting_mutex::key_of(const wire::Mutex& m) {
  return key{m.clock(), m.requester(), m.request()};
}

wire::Mutex voting_mutex::message(const char* kind, const std::string& r,
                                  const key& k) const {
  auto m = make(kind, r);
  m.set_clock(k.clock);
  m.set_requester(k.requester);
  m.set_request(k.request);
  return m;
}

void voting_mutex::deliver(const std::string& to, wire::Mutex m, millis now) {
  if (to == self_)
    on_message(self_, m, now);
  else
    send(to, std::move(m));
}

void voting_mutex::on_view(std::vector<std::string> live, millis now) {
  born(now);
  mutex_state::on_view(std::move(live), now);
  members_.insert(live_.begin(), live_.end());
}

void voting_mutex::request(const std::string& r, millis now) {
  born(now);
  if (!wanted_.insert(r).second)
    return;
  auto& w = want_[r];
  w.k = key{clock_.tick(), self_, ++next_request_};
  w.votes.clear();
  w.yielded.clear();
  auto m = message("request", r, w.k);
  m.set_stamp_ms(now);
  broadcast(m);
  on_message(self_, m, now);
  wake_at(now + cfg_.retry_ms);
}

void voting_mutex::release(const std::string& r, millis now) {
  auto it = want_.find(r);
  if (it == want_.end())
    return;
  auto m = message("release", r, it->second.k);
  want_.erase(it);
  wanted_.erase(r);
  held_.erase(r);
  broadcast(m);
  on_message(self_, m, now);
}

void voting_mutex::on_message(const std::string& from, const wire::Mutex& m,
                              millis now) {
  born(now);
  if (!accept(m) || m.resource().empty())
    return;
  const auto& k = m.kind();
  const auto& r = m.resource();
  clock_.observe(m.clock());
  if (k == "request") {
    on_request(from, m, now);
  } else if (k == "release" || k == "yield") {
    if (m.requester() != from)
      return;
    heard_[{r, from}] = now;
    auto bi = ballots_.find(r);
    if (bi == ballots_.end())
      return;
    auto& b = bi->second;
    auto key = key_of(m);
    if (k == "release")
      b.queue.erase(key);
    // A yield gives back one vote: not a later one for the same request.
    bool that_vote = k == "release" || m.epoch() == b.number;
    if (b.vote && *b.vote == key && that_vote) {
      if (k == "yield")
        b.queue[key] = b.vote_stamp;
      b.vote.reset();
      give_next(r, b, now);
    }
  } else if (k == "vote") {
    on_vote(from, m, now);
  } else if (k == "inquire") {
    auto w = want_.find(r);
    if (w == want_.end() || !(w->second.k == key_of(m))) {
      if (m.requester() == self_) // a request we gave up: let the vote go
        deliver(from, message("release", r, key_of(m)), now);
      return;
    }
    if (holds(r))
      return; // inside: the voter gets its vote back when we leave
    w->second.votes.erase(from);
    auto& y = w->second.yielded[from];
    y = std::max(y, m.epoch());
    auto yield = message("yield", r, w->second.k);
    yield.set_epoch(m.epoch());
    deliver(from, std::move(yield), now);
  } else {
    ++ignored_;
  }
}

void voting_mutex::on_request(const std::string& from, const wire::Mutex& m,
                              millis now) {
  if (m.requester() != from)
    return;
  const auto& r = m.resource();
  heard_[{r, from}] = now;
  if (now < *abstain_until_)
    return; // we may have voted before a restart: wait until that lapsed
  auto& b = ballots_[r];
  auto k = key_of(m);
  // One request per node and resource at a time: a later one replaces
  // the earlier (its release was lost).
  for (auto it = b.queue.begin(); it != b.queue.end();)
    it = it->first.requester == from && it->first.request < k.request
           ? b.queue.erase(it)
           : std::next(it);
  if (b.vote && b.vote->requester == from) {
    if (b.vote->request == k.request) {
      b.vote_stamp = m.stamp_ms(); // a refresh: echo it
      give(r, b, now);
      return;
    }
    if (b.vote->request > k.request)
      return; // a stray from before
    b.vote.reset();
  }
  b.queue[k] = m.stamp_ms();
  if (!b.vote) {
    give_next(r, b, now);
    return;
  }
  if (k < *b.vote && !b.inquired) {
    b.inquired = true;
    auto inquire = message("inquire", r, *b.vote);
    inquire.set_epoch(b.number);
    deliver(b.vote->requester, std::move(inquire), now);
  }
}

void voting_mutex::give(const std::string& r, ballot& b, millis now) {
  auto v = message("vote", r, *b.vote);
  v.set_stamp_ms(b.vote_stamp);
  v.set_epoch(b.number);
  deliver(b.vote->requester, std::move(v), now);
}

void voting_mutex::give_next(const std::string& r, ballot& b, millis now) {
  b.inquired = false;
  if (b.queue.empty()) {
    ballots_.erase(r);
    return;
  }
  auto first = b.queue.begin();
  b.vote = first->first;
  b.number = ++votes_given_;
  b.vote_stamp = first->second;
  b.queue.erase(first);
  give(r, b, now);
  wake_at(now + cfg_.retry_ms);
}

void voting_mutex::on_vote(const std::string& from, const wire::Mutex& m,
                           millis now) {
  const auto& r = m.resource();
  auto w = want_.find(r);
  if (w == want_.end() || !(w->second.k == key_of(m))) {
    if (m.requester() == self_) // a vote for a request we gave up
      deliver(from, message("release", r, key_of(m)), now);
    return;
  }
  auto y = w->second.yielded.find(from);
  if (y != w->second.yielded.end() && m.epoch() <= y->second)
    return; // the vote we gave back, arriving late
  auto& stamp = w->second.votes[from];
  stamp = std::max(stamp, m.stamp_ms());
  check(r, now);
}

std::size_t voting_mutex::fresh(const want& w, millis now) const {
  std::size_t n = 0;
  for (const auto& [voter, stamp] : w.votes)
    if (stamp + cfg_.lease_ms > now)
      ++n;
  return n;
}

std::optional<millis> voting_mutex::lapse(const want& w) const {
  std::vector<millis> stamps;
  for (const auto& [voter, stamp] : w.votes)
    stamps.push_back(stamp);
  if (stamps.size() < quorum())
    return std::nullopt;
  std::nth_element(stamps.begin(), stamps.begin() + (quorum() - 1), stamps.end(),
                   std::greater<>());
  return stamps[quorum() - 1] + cfg_.lease_ms;
}

void voting_mutex::check(const std::string& r, millis now) {
  auto& w = want_.at(r);
  bool enough = fresh(w, now) >= quorum();
  if (enough && !holds(r))
    enter(r);
  else if (!enough && holds(r))
    lose(r); // our majority stopped confirming: another may enter soon
  if (auto t = lapse(w); t && *t > now)
    wake_at(*t);
}

void voting_mutex::tick(millis now) {
  born(now);
  wake_.reset();
  for (auto& [r, w] : want_) {
    check(r, now);
    // Ask again (and refresh the lease): voters answer every request.
    auto m = message("request", r, w.k);
    m.set_stamp_ms(now);
    broadcast(m);
    on_message(self_, m, now);
  }
  if (!want_.empty())
    wake_at(now + cfg_.retry_ms);
  std::vector<std::string> reclaim;
  for (auto& [r, b] : ballots_) {
    if (!b.vote)
      continue;
    auto heard = heard_[{r, b.vote->requester}];
    if (now - heard >= cfg_.reclaim_ms) {
      reclaim.push_back(r);
      continue;
    }
    wake_at(heard + cfg_.reclaim_ms);
    if (!b.queue.empty() && b.queue.begin()->first < *b.vote) { // inquire again
      auto inquire = message("inquire", r, *b.vote);
      inquire.set_epoch(b.number);
      deliver(b.vote->requester, std::move(inquire), now);
    }
    wake_at(now + cfg_.retry_ms);
  }
  for (const auto& r : reclaim) {
    auto& b = ballots_[r];
    b.vote.reset();
    give_next(r, b, now);
  }
  // Forget who we heard from about resources we no longer vote on.
  for (auto it = heard_.begin(); it != heard_.end();)
    it = now - it->second > 2 * cfg_.reclaim_ms ? heard_.erase(it) : std::next(it);
  if (now < *abstain_until_)
    wake_at(*abstain_until_);
}

std::vector<lock_info> voting_mutex::locks() const {
  std::map<std::string, lock_info> all;
  for (const auto& [r, b] : ballots_) {
    auto& l = all[r];
    l.resource = r;
    if (b.vote)
      l.holder = b.vote->requester; // our vote; the holder once a majority agrees
    for (const auto& [k, stamp] : b.queue)
      l.waiters.push_back(k.requester);
  }
  for (const auto& r : wanted_) {
    auto& l = all[r];
    l.resource = r;
    if (holds(r))
      l.holder = self_;
  }
  std::vector<lock_info> out;
  for (auto& [r, l] : all)
    out.push_back(std::move(l));
  return out;
}

} // namespace dice
