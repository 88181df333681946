#include "simulation/mutex_sim.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace dice {

mutex_sim::mutex_sim(mutex_sim_config cfg)
  : cfg_(std::move(cfg)), net_(cfg_.seed), rng_(cfg_.seed ^ 0x9e3779b97f4a7c15ULL) {
  net_.set_default_faults(cfg_.faults);
  for (std::size_t i = 0; i < cfg_.nodes; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "n%03zu", i);
    ids_.emplace_back(name);
  }
  for (const auto& id : ids_) {
    net_.attach(id);
    auto& n = nodes_[id];
    n.machine = make_mutex(cfg_.algorithm, id, cfg_.mutex);
    n.until = draw(0, 2 * cfg_.think_ms);
  }
  for (const auto& id : ids_)
    feed_view(id);
}

millis mutex_sim::draw(millis lo, millis hi) {
  if (hi <= lo)
    return lo;
  return std::uniform_int_distribution<millis>(lo, hi)(rng_);
}

void mutex_sim::trace(const std::string& line) const {
  if (cfg_.trace)
    cfg_.trace("t=" + std::to_string(now_) + " " + line);
}

std::vector<std::string> mutex_sim::reachable(const std::string& id) const {
  std::vector<std::string> out;
  const std::vector<std::string>* group = nullptr;
  for (const auto& g : groups_)
    if (std::find(g.begin(), g.end(), id) != g.end())
      group = &g;
  for (const auto& other : ids_) {
    if (!nodes_.at(other).up)
      continue;
    if (!groups_.empty()) {
      bool same = group ? std::find(group->begin(), group->end(), other) != group->end()
                        : std::none_of(groups_.begin(), groups_.end(), [&](const auto& g) {
                            return std::find(g.begin(), g.end(), other) != g.end();
                          });
      if (!same)
        continue;
    }
    out.push_back(other);
  }
  return out;
}

void mutex_sim::feed_view(const std::string& id) {
  auto& n = nodes_.at(id);
  if (!n.up)
    return;
  auto live = reachable(id);
  trace(id + " view " + std::to_string(live.size()));
  n.machine->on_view(live, now_);
  n.machine->on_coordinator(live.empty() ? std::string{} : live.front(), now_);
  after(id);
}

void mutex_sim::schedule_views() {
  view_updates_.emplace(now_ + cfg_.detect_ms, 0);
}

void mutex_sim::crash(const std::string& id) {
  auto& n = nodes_.at(id);
  n.up = false;
  n.tick_at.reset();
  net_.crash(id);
  trace(id + " crashes");
  schedule_views();
}

void mutex_sim::restart(const std::string& id) {
  auto& n = nodes_.at(id);
  auto c = cfg_.mutex;
  c.request_base = ++incarnations_ << 40;
  c.abstain_at_start = true; // it may have voted in its previous life
  n.machine = make_mutex(cfg_.algorithm, id, c);
  n.up = true;
  n.ph = phase::thinking;
  n.until = now_ + draw(0, 2 * cfg_.think_ms);
  n.tick_at.reset();
  net_.restart(id);
  trace(id + " restarts");
  feed_view(id);
  schedule_views();
}

void mutex_sim::partition(const std::vector<std::vector<std::string>>& groups) {
  groups_ = groups;
  net_.partition(groups);
  trace("partition");
  schedule_views();
}

void mutex_sim::heal() {
  groups_.clear();
  net_.heal();
  trace("heal");
  schedule_views();
}

void mutex_sim::set_faults(link_faults f) {
  net_.set_default_faults(f);
}

void mutex_sim::mark_settled() {
  mark_ = now_;
  longest_wait_ = 0;
}

millis mutex_sim::longest_wait_since_mark() const {
  auto longest = longest_wait_;
  if (mark_)
    for (const auto& [id, n] : nodes_)
      if (n.up && n.ph == phase::waiting)
        longest = std::max(longest, now_ - std::max(n.asked_at, *mark_));
  return longest;
}

void mutex_sim::flush(const std::string& id) {
  auto& n = nodes_.at(id);
  for (auto& s : n.machine->take_outbox()) {
    auto bytes = s.msg.SerializeAsString();
    if (!s.to.empty()) {
      net_.send(now_, id, s.to, bytes);
      continue;
    }
    for (const auto& peer : n.machine->live())
      if (peer != id)
        net_.send(now_, id, peer, bytes);
  }
}

void mutex_sim::after(const std::string& id) {
  auto& n = nodes_.at(id);
  if (!n.up)
    return;
  for (const auto& r : n.machine->take_granted()) {
    if (n.ph != phase::waiting || r != n.resource) {
      violation_ = violation_.empty() ? id + " granted " + r + " it did not ask for"
                                      : violation_;
      continue;
    }
    auto waited = now_ - n.asked_at;
    ++entries_;
    wait_sum_ += static_cast<std::uint64_t>(waited);
    if (mark_)
      longest_wait_ = std::max(longest_wait_, now_ - std::max(n.asked_at, *mark_));
    n.ph = phase::holding;
    n.until = now_ + draw(1, 2 * cfg_.hold_ms);
    trace(id + " enters " + r + " after " + std::to_string(waited) + " ms");
  }
  for (const auto& r : n.machine->take_lost()) {
    ++lost_;
    trace(id + " loses " + r);
    if (n.ph == phase::holding && r == n.resource) {
      n.machine->release(r, now_); // the work under the lock is stopped
      n.ph = phase::thinking;
      n.until = now_ + draw(0, 2 * cfg_.think_ms);
    }
  }
  flush(id);
  check();
  auto d = n.machine->next_deadline();
  // A deadline already due runs at the next millisecond: time moves on.
  n.tick_at = d ? std::optional<millis>{std::max(*d, now_ + 1)} : std::nullopt;
}

void mutex_sim::work(const std::string& id) {
  auto& n = nodes_.at(id);
  if (!n.up || n.ph == phase::waiting || now_ < n.until)
    return;
  if (n.ph == phase::holding) {
    trace(id + " leaves " + n.resource);
    n.machine->release(n.resource, now_);
    n.ph = phase::thinking;
    n.until = now_ + draw(0, 2 * cfg_.think_ms);
  } else {
    auto k = std::uniform_int_distribution<std::size_t>(0, cfg_.resources - 1)(rng_);
    n.resource = "r" + std::to_string(k);
    n.ph = phase::waiting;
    n.asked_at = now_;
    trace(id + " asks " + n.resource);
    n.machine->request(n.resource, now_);
  }
  after(id);
}

void mutex_sim::check() {
  if (!violation_.empty())
    return;
  std::map<std::string, std::vector<std::string>> holders;
  for (const auto& [id, n] : nodes_)
    if (n.up)
      for (const auto& r : n.machine->held())
        holders[r].push_back(id);
  for (const auto& [r, who] : holders)
    if (who.size() > 1) {
      std::ostringstream s;
      s << "t=" << now_ << " " << r << " held by";
      for (const auto& w : who)
        s << ' ' << w;
      violation_ = s.str();
      trace("VIOLATION " + violation_);
      return;
    }
}

void mutex_sim::step(millis t) {
  now_ = t;
  while (!view_updates_.empty() && view_updates_.begin()->first <= now_) {
    view_updates_.erase(view_updates_.begin());
    for (const auto& id : ids_)
      feed_view(id);
  }
  while (auto d = net_.pop_due(now_)) {
    auto& n = nodes_.at(d->to);
    if (!n.up)
      continue;
    wire::Mutex m;
    if (!m.ParseFromString(d->bytes))
      continue;
    trace(d->from + " -> " + d->to + " " + m.kind() + " " + m.resource());
    n.machine->on_message(d->from, m, now_);
    after(d->to);
  }
  for (const auto& id : ids_) {
    auto& n = nodes_.at(id);
    if (n.up && n.tick_at && *n.tick_at <= now_) {
      n.tick_at.reset();
      n.machine->tick(now_);
      after(id);
    }
    work(id);
  }
}

void mutex_sim::run_until(millis until) {
  for (;;) {
    std::optional<millis> next;
    auto consider = [&](std::optional<millis> t) {
      if (t && (!next || *t < *next))
        next = t;
    };
    consider(net_.next_time());
    if (!view_updates_.empty())
      consider(view_updates_.begin()->first);
    for (const auto& [id, n] : nodes_) {
      if (!n.up)
        continue;
      consider(n.tick_at);
      if (n.ph != phase::waiting)
        consider(n.until);
    }
    if (!next || *next > until) {
      now_ = std::max(now_, until);
      return;
    }
    step(std::max(*next, now_));
  }
}

std::string mutex_sim::describe() const {
  std::ostringstream s;
  for (const auto& [id, n] : nodes_) {
    s << id << (n.up ? "" : " (down)") << ": ";
    if (n.up) {
      s << (n.ph == phase::waiting ? "waits for " : n.ph == phase::holding ? "holds " : "thinks ")
        << n.resource << " since " << n.asked_at << "; held:";
      for (const auto& r : n.machine->held())
        s << ' ' << r;
    }
    s << '\n';
  }
  return s.str();
}

} // namespace dice
