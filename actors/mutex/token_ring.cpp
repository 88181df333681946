#include "mutex/token_ring.hpp"

#include <algorithm>

namespace dice {

token_ring_mutex::token_ring_mutex(std::string self_id, mutex_config cfg)
  : mutex_state("token-ring", std::move(self_id), cfg) {
}

millis token_ring_mutex::loss_timeout() const {
  return cfg_.token_loss_ms
         + static_cast<millis>(live_.size()) * (cfg_.token_hop_ms + cfg_.retry_ms);
}

std::string token_ring_mutex::successor() const {
  auto it = std::upper_bound(live_.begin(), live_.end(), self_);
  return it == live_.end() ? live_.front() : *it;
}

void token_ring_mutex::on_view(std::vector<std::string> live, millis now) {
  mutex_state::on_view(std::move(live), now);
  if (!last_seen_)
    last_seen_ = now;
  census_.on_view(live_);
  if (census_.complete())
    start_census(0, now);
  // The node we passed to died before acknowledging: the token may be lost
  // with it, and the census (not a second copy) makes the next one.
  if (passing_ && !is_live(pass_to_))
    passing_.reset();
  wake_at(now);
}

void token_ring_mutex::request(const std::string& r, millis now) {
  if (!wanted_.insert(r).second)
    return;
  request_of_[r] = ++next_request_;
  if (have_)
    take(now);
}

void token_ring_mutex::release(const std::string& r, millis) {
  // The token's entry goes when the token comes by; until then nobody else
  // can take the resource, which is safe.
  if (held_.count(r))
    left_.insert(r);
  wanted_.erase(r);
  held_.erase(r);
  request_of_.erase(r);
}

wire::Mutex token_ring_mutex::token_message(const char* kind) const {
  auto m = make(kind, "");
  m.set_epoch(rank_.first);
  m.set_requester(rank_.second);
  m.set_request(hop_);
  return m;
}

void token_ring_mutex::on_message(const std::string& from, const wire::Mutex& m,
                                  millis now) {
  if (!accept(m))
    return;
  const auto& k = m.kind();
  if (k == "token") {
    on_token(from, m, now);
  } else if (k == "ack") {
    if (passing_ && from == pass_to_ && m.epoch() == passing_->epoch()
        && m.requester() == passing_->requester()
        && m.request() == passing_->request()) {
      passing_.reset();
      last_seen_ = now;
    }
  } else if (k == "census") {
    on_census(from, m);
    last_seen_ = now;
  } else if (k == "holding") {
    if (!census_.running())
      return;
    if (m.clock() >= census_.epoch()) { // a later census or token exists
      census_.stop();
      rank_ = std::max(rank_, rank{m.clock(), ""});
      return; // if that one fails too, the silence starts another
    }
    if (m.requester() == self_)
      census_.on_answer(m.epoch(), from, m.holds());
    if (census_.complete())
      start_census(0, now);
  } else {
    ++ignored_;
  }
}

void token_ring_mutex::on_token(const std::string& from, const wire::Mutex& m,
                                millis now) {
  rank r{m.epoch(), m.requester()};
  auto ack = make("ack", "");
  ack.set_epoch(m.epoch());
  ack.set_requester(m.requester());
  ack.set_request(m.request());
  send(from, std::move(ack)); // stops the sender's retransmissions
  if (r < rank_ || (r == rank_ && m.request() <= hop_))
    return; // retired by a census, or a duplicate
  rank_ = r;
  hop_ = m.request();
  census_.stop();
  passing_.reset();
  have_ = true;
  last_seen_ = now;
  table_.clear();
  for (const auto& h : m.holds())
    table_[h.resource()] = h;
  take(now);
  pass_at_ = now + cfg_.token_hop_ms;
  wake_at(pass_at_);
}

void token_ring_mutex::take(millis) {
  for (auto it = table_.begin(); it != table_.end();) {
    const auto& h = it->second;
    bool gone = !is_live(h.holder()) || (h.holder() == self_ && !holds(it->first));
    it = gone ? table_.erase(it) : std::next(it);
  }
  for (const auto& r : wanted_) {
    if (holds(r) || table_.count(r) || left_.count(r))
      continue;
    wire::MutexHold h;
    h.set_resource(r);
    h.set_holder(self_);
    h.set_request(request_of_[r]);
    table_[r] = h;
    enter(r);
  }
}

void token_ring_mutex::pass(millis now) {
  auto next = successor();
  if (next == self_) { // alone: keep it, look again after a hop
    left_.clear();
    take(now);
    pass_at_ = now + cfg_.token_hop_ms;
    last_seen_ = now;
    wake_at(pass_at_);
    return;
  }
  take(now);
  left_.clear();
  ++hop_;
  auto m = token_message("token");
  for (const auto& [r, h] : table_)
    *m.add_holds() = h;
  have_ = false;
  pass_to_ = next;
  passing_ = m;
  send(next, std::move(m));
  wake_at(now + cfg_.retry_ms);
}

void token_ring_mutex::on_census(const std::string& from, const wire::Mutex& m) {
  rank r{m.epoch(), m.requester()};
  auto answer = make("holding", "");
  answer.set_epoch(m.epoch());
  answer.set_requester(m.requester());
  if (r < rank_) {
    answer.set_clock(rank_.first);
    send(from, std::move(answer));
    return;
  }
  if (rank_ < r) { // every older token is retired here from now on
    rank_ = r;
    hop_ = 0;
    have_ = false;
    passing_.reset();
    if (census_.running() && from != self_)
      census_.stop();
  }
  for (const auto& res : held_) {
    auto* h = answer.add_holds();
    h->set_resource(res);
    h->set_holder(self_);
    h->set_request(request_of_[res]);
  }
  send(from, std::move(answer));
}

void token_ring_mutex::start_census(std::uint64_t generation, millis now) {
  if (generation > 0) {
    rank_ = {generation, self_};
    hop_ = 0;
    have_ = false;
    passing_.reset();
    std::vector<wire::MutexHold> own;
    for (const auto& res : held_) {
      wire::MutexHold h;
      h.set_resource(res);
      h.set_holder(self_);
      h.set_request(request_of_[res]);
      own.push_back(std::move(h));
    }
    census_.start(generation, self_, live_, std::move(own));
    if (!census_.complete()) {
      auto m = token_message("census");
      broadcast(std::move(m));
      wake_at(now + cfg_.retry_ms);
      return;
    }
  }
  // Every live node answered: the new token starts here with their holds.
  table_ = census_.holds();
  census_.stop();
  have_ = true;
  last_seen_ = now;
  take(now);
  pass_at_ = now + cfg_.token_hop_ms;
  wake_at(pass_at_);
}

void token_ring_mutex::tick(millis now) {
  wake_.reset();
  if (!last_seen_)
    last_seen_ = now;
  if (have_) {
    if (now >= pass_at_)
      pass(now);
    else
      wake_at(pass_at_);
  }
  if (passing_) {
    send(pass_to_, *passing_);
    wake_at(now + cfg_.retry_ms);
  }
  if (census_.running()) {
    for (const auto& id : census_.waiting()) {
      auto m = token_message("census");
      send(id, std::move(m));
    }
    wake_at(now + cfg_.retry_ms);
    return;
  }
  if (have_ || passing_)
    return;
  auto due = *last_seen_ + loss_timeout();
  if (live_.front() == self_ && now >= due)
    start_census(rank_.first + 1, now);
  else
    wake_at(std::max(due, now + cfg_.retry_ms));
}

std::vector<lock_info> token_ring_mutex::locks() const {
  std::map<std::string, lock_info> all;
  for (const auto& [r, h] : table_)
    all[r] = lock_info{r, h.holder(), {}};
  for (const auto& r : wanted_)
    if (!holds(r)) {
      auto& l = all[r];
      l.resource = r;
      l.waiters.push_back(self_);
    }
  std::vector<lock_info> out;
  for (auto& [r, l] : all)
    out.push_back(std::move(l));
  return out;
}

} // namespace dice
