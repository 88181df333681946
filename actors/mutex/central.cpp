#include "mutex/central.hpp"

#include <algorithm>

namespace dice {

central_mutex::central_mutex(std::string self_id, mutex_config cfg)
  : mutex_state("central", std::move(self_id), cfg) {
}

void central_mutex::on_view(std::vector<std::string> live, millis now) {
  mutex_state::on_view(std::move(live), now);
  if (!coordinating_)
    return;
  census_.on_view(live_);
  if (census_.running()) {
    if (census_.complete())
      start_census(0, now); // finishes it: see start_census
    return;
  }
  // A member declared dead releases what it held and stops waiting.
  for (auto& [r, q] : queue_)
    q.erase(std::remove_if(q.begin(), q.end(),
                           [&](const claim& c) { return !is_live(c.first); }),
            q.end());
  std::vector<std::string> freed;
  for (const auto& [r, c] : holder_)
    if (!is_live(c.first))
      freed.push_back(r);
  for (const auto& r : freed) {
    holder_.erase(r);
    grant_next(r, now);
  }
}

void central_mutex::on_coordinator(const std::string& c, millis now) {
  if (c == self_) {
    if (!coordinating_) {
      coordinating_ = true;
      coordinator_ = self_;
      start_census(epoch_ + 1, now);
    }
    return;
  }
  coordinating_ = false;
  census_.stop();
  holder_.clear();
  queue_.clear();
  if (!c.empty())
    coordinator_ = c;
  wake_at(now);
}

void central_mutex::start_census(std::uint64_t epoch, millis now) {
  if (epoch > 0) {
    epoch_ = epoch;
    holder_.clear();
    queue_.clear();
    std::vector<wire::MutexHold> own;
    for (const auto& [r, req] : mine_)
      if (holds(r)) {
        wire::MutexHold h;
        h.set_resource(r);
        h.set_holder(self_);
        h.set_request(req);
        own.push_back(std::move(h));
      }
    census_.start(epoch, self_, live_, std::move(own));
    if (!census_.complete()) {
      auto m = make("census", "");
      m.set_epoch(epoch);
      broadcast(std::move(m));
      wake_at(now + cfg_.retry_ms);
      return;
    }
  }
  // Everyone answered: what they hold is the table; grants may begin.
  for (const auto& [r, h] : census_.holds())
    holder_[r] = claim{h.holder(), h.request()};
  census_.stop();
  // Our own waiting requests go first in line; others come when they retry.
  for (const auto& [r, req] : mine_)
    if (!holds(r))
      serve(self_, [&] {
        auto m = make("request", r);
        m.set_requester(self_);
        m.set_request(req);
        return m;
      }(), now);
}

void central_mutex::request(const std::string& r, millis now) {
  if (!wanted_.insert(r).second)
    return;
  auto req = ++next_request_;
  mine_[r] = req;
  auto m = make("request", r);
  m.set_requester(self_);
  m.set_request(req);
  to_coordinator(std::move(m), now);
  wake_at(now + cfg_.retry_ms);
}

void central_mutex::release(const std::string& r, millis now) {
  auto it = mine_.find(r);
  if (it == mine_.end())
    return;
  auto m = make("release", r);
  m.set_requester(self_);
  m.set_request(it->second);
  releasing_.emplace(r, it->second);
  mine_.erase(it);
  wanted_.erase(r);
  held_.erase(r);
  to_coordinator(std::move(m), now);
  wake_at(now + cfg_.retry_ms);
}

void central_mutex::to_coordinator(wire::Mutex m, millis now) {
  if (coordinator_.empty())
    return; // sent when there is one
  if (coordinator_ == self_)
    on_message(self_, m, now);
  else
    send(coordinator_, std::move(m));
}

void central_mutex::on_message(const std::string& from, const wire::Mutex& m,
                               millis now) {
  if (!accept(m))
    return;
  const auto& k = m.kind();
  if (k == "grant") {
    on_grant(from, m, now);
  } else if (k == "released") {
    releasing_.erase({m.resource(), m.request()});
  } else if (k == "census") {
    on_census(from, m, now);
  } else if (k == "holding") {
    if (!coordinating_ || !census_.running())
      return;
    if (m.clock() >= census_.epoch()) { // someone follows a later census
      start_census(m.clock() + 1, now);
      return;
    }
    census_.on_answer(m.epoch(), from, m.holds());
    if (census_.complete())
      start_census(0, now);
  } else if (k == "request" || k == "release") {
    if (m.requester() != from) {
      ++ignored_;
      return;
    }
    serve(from, m, now);
  } else {
    ++ignored_;
  }
}

void central_mutex::on_grant(const std::string& from, const wire::Mutex& m,
                             millis now) {
  const auto& r = m.resource();
  auto it = mine_.find(r);
  bool current = it != mine_.end() && m.requester() == self_
                 && it->second == m.request();
  if (!current) {
    // A grant of a request we gave up: give it back, or it stays taken.
    if (m.requester() == self_) {
      auto back = make("release", r);
      back.set_requester(self_);
      back.set_request(m.request());
      if (from == self_)
        serve(self_, back, now);
      else
        send(from, std::move(back));
    }
    return;
  }
  // Only our coordinator grants, and not from before the census we follow:
  // an older coordinator's late grant could clash with what the new one
  // gave out. A node that started after the last census learns its epoch
  // from the first grant.
  if (from != coordinator_ || m.epoch() < epoch_)
    return;
  epoch_ = m.epoch();
  enter(r);
}

void central_mutex::on_census(const std::string& from, const wire::Mutex& m,
                              millis) {
  auto answer = make("holding", "");
  answer.set_epoch(m.epoch());
  if (m.epoch() > epoch_ || (m.epoch() == epoch_ && from == coordinator_)) {
    if (coordinating_ && from != self_) {
      coordinating_ = false; // a later coordinator took over
      census_.stop();
      holder_.clear();
      queue_.clear();
    }
    epoch_ = m.epoch();
    coordinator_ = from;
    for (const auto& [r, req] : mine_)
      if (holds(r)) {
        auto* h = answer.add_holds();
        h->set_resource(r);
        h->set_holder(self_);
        h->set_request(req);
      }
  } else {
    answer.set_clock(epoch_); // we follow a later census: so must you
  }
  send(from, std::move(answer));
}

void central_mutex::serve(const std::string& from, const wire::Mutex& m,
                          millis now) {
  if (!coordinating_ || census_.running())
    return; // the requester asks again
  const auto& r = m.resource();
  claim c{from, m.request()};
  auto& q = queue_[r];
  auto mine = [&](const claim& x) { return x.first == from; };
  if (m.kind() == "release") {
    auto h = holder_.find(r);
    q.erase(std::remove(q.begin(), q.end(), c), q.end());
    if (h != holder_.end() && h->second == c) {
      holder_.erase(h);
      grant_next(r, now);
    }
    auto ack = make("released", r);
    ack.set_requester(from);
    ack.set_request(m.request());
    if (from == self_)
      releasing_.erase({r, m.request()});
    else
      send(from, std::move(ack));
    if (q.empty())
      queue_.erase(r);
    return;
  }
  auto h = holder_.find(r);
  if (h != holder_.end() && h->second.first == from
      && h->second.second <= c.second) {
    // Granted already (the grant was lost), or a later request: the
    // earlier hold's release was lost, requests of one node come in order.
    h->second = c;
    send_grant(r, c, now);
    return;
  }
  auto queued = std::find_if(q.begin(), q.end(), mine);
  if (queued != q.end()) {
    queued->second = std::max(queued->second, c.second);
    return;
  }
  if (h == holder_.end()) {
    holder_[r] = c;
    send_grant(r, c, now);
    if (q.empty())
      queue_.erase(r);
    return;
  }
  q.push_back(c);
}

void central_mutex::grant_next(const std::string& r, millis now) {
  auto q = queue_.find(r);
  if (q == queue_.end() || q->second.empty())
    return;
  auto c = q->second.front();
  q->second.pop_front();
  if (q->second.empty())
    queue_.erase(q);
  holder_[r] = c;
  send_grant(r, c, now);
}

void central_mutex::send_grant(const std::string& r, const claim& c,
                               millis now) {
  auto g = make("grant", r);
  g.set_requester(c.first);
  g.set_request(c.second);
  g.set_epoch(epoch_);
  if (c.first == self_)
    on_grant(self_, g, now);
  else
    send(c.first, std::move(g));
}

void central_mutex::tick(millis now) {
  wake_.reset();
  bool pending = false;
  if (coordinating_ && census_.running()) {
    for (const auto& id : census_.waiting()) {
      auto m = make("census", "");
      m.set_epoch(census_.epoch());
      send(id, std::move(m));
    }
    pending = true;
  }
  for (const auto& [r, req] : mine_)
    if (!holds(r)) {
      auto m = make("request", r);
      m.set_requester(self_);
      m.set_request(req);
      to_coordinator(std::move(m), now);
      pending = true;
    }
  for (const auto& [r, req] : std::set<std::pair<std::string, std::uint64_t>>(releasing_)) {
    auto m = make("release", r);
    m.set_requester(self_);
    m.set_request(req);
    to_coordinator(std::move(m), now);
    pending = true;
  }
  if (pending)
    wake_at(now + cfg_.retry_ms);
}

std::vector<lock_info> central_mutex::locks() const {
  if (!coordinating_)
    return mutex_state::locks();
  std::map<std::string, lock_info> all;
  for (const auto& [r, c] : holder_)
    all[r] = lock_info{r, c.first, {}};
  for (const auto& [r, q] : queue_) {
    auto& l = all[r];
    l.resource = r;
    for (const auto& c : q)
      l.waiters.push_back(c.first);
  }
  std::vector<lock_info> out;
  for (auto& [r, l] : all)
    out.push_back(std::move(l));
  return out;
}

} // namespace dice
