#include "mutex/ricart_agrawala.hpp"

#include <algorithm>
#include <utility>

namespace dice {

ricart_agrawala_mutex::ricart_agrawala_mutex(std::string self_id,
                                             mutex_config cfg)
  : mutex_state("ricart-agrawala", std::move(self_id), cfg) {
}

void ricart_agrawala_mutex::on_view(std::vector<std::string> live, millis now) {
  mutex_state::on_view(std::move(live), now);
  for (auto& [r, waiting] : deferred_)
    for (auto it = waiting.begin(); it != waiting.end();)
      it = is_live(it->first) ? std::next(it) : waiting.erase(it);
  for (auto& [r, w] : want_) {
    for (const auto& peer : live_)
      if (peer != self_ && !w.oks.count(peer))
        ask(r, w, peer); // a newcomer must agree too
    maybe_enter(r);
  }
}

void ricart_agrawala_mutex::ask(const std::string& r, const want& w,
                                const std::string& to) {
  auto m = make("request", r);
  m.set_clock(w.clock);
  m.set_requester(self_);
  m.set_request(w.request);
  send(to, std::move(m));
}

void ricart_agrawala_mutex::request(const std::string& r, millis now) {
  if (!wanted_.insert(r).second)
    return;
  auto& w = want_[r];
  w.clock = clock_.tick();
  w.request = ++next_request_;
  auto m = make("request", r);
  m.set_clock(w.clock);
  m.set_requester(self_);
  m.set_request(w.request);
  broadcast(std::move(m));
  maybe_enter(r);
  wake_at(now + cfg_.retry_ms);
}

void ricart_agrawala_mutex::maybe_enter(const std::string& r) {
  auto it = want_.find(r);
  if (it == want_.end() || holds(r))
    return;
  for (const auto& peer : live_)
    if (peer != self_ && !it->second.oks.count(peer))
      return;
  enter(r);
}

void ricart_agrawala_mutex::release(const std::string& r, millis) {
  wanted_.erase(r);
  held_.erase(r);
  want_.erase(r);
  auto d = deferred_.find(r);
  if (d == deferred_.end())
    return;
  for (const auto& [peer, req] : d->second) {
    auto ok = make("ok", r);
    ok.set_requester(peer);
    ok.set_request(req);
    send(peer, std::move(ok));
  }
  deferred_.erase(d);
}

void ricart_agrawala_mutex::on_message(const std::string& from,
                                       const wire::Mutex& m, millis) {
  if (!accept(m))
    return;
  const auto& r = m.resource();
  if (m.kind() == "request") {
    clock_.observe(m.clock());
    // A node asking is alive, whatever membership said so far (a restart
    // heard before membership reports it): from now on it must agree too.
    if (!is_live(from)) {
      live_.insert(std::upper_bound(live_.begin(), live_.end(), from), from);
      for (auto& [res, w] : want_)
        if (!holds(res))
          ask(res, w, from);
    }
    auto w = want_.find(r);
    // Lamport order: the earlier (timestamp, id) goes first.
    bool defer = holds(r)
                 || (w != want_.end()
                     && std::make_pair(w->second.clock, self_)
                          < std::make_pair(m.clock(), from));
    if (defer) {
      deferred_[r][from] = m.request();
      return;
    }
    auto ok = make("ok", r);
    ok.set_requester(from);
    ok.set_request(m.request());
    send(from, std::move(ok));
  } else if (m.kind() == "ok") {
    auto w = want_.find(r);
    if (w == want_.end() || m.requester() != self_
        || m.request() != w->second.request)
      return; // an answer to a request we no longer make
    w->second.oks.insert(from);
    maybe_enter(r);
  } else {
    ++ignored_;
  }
}

void ricart_agrawala_mutex::tick(millis now) {
  wake_.reset();
  bool waiting = false;
  for (const auto& [r, w] : want_) {
    if (holds(r))
      continue;
    waiting = true;
    for (const auto& peer : live_)
      if (peer != self_ && !w.oks.count(peer))
        ask(r, w, peer);
  }
  if (waiting)
    wake_at(now + cfg_.retry_ms);
}

std::vector<lock_info> ricart_agrawala_mutex::locks() const {
  auto out = mutex_state::locks();
  // The requests we defer wait for us: we hold the resource or asked first.
  for (const auto& [r, waiting] : deferred_) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const lock_info& l) { return l.resource == r; });
    if (it == out.end())
      it = out.insert(out.end(), lock_info{r, {}, {}});
    for (const auto& [peer, req] : waiting)
      it->waiters.push_back(peer);
  }
  return out;
}

} // namespace dice
