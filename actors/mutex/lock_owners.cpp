#include "mutex/lock_owners.hpp"

#include <algorithm>

namespace dice {

void lock_owners::on_want(std::function<void()> fn) {
  std::lock_guard<std::mutex> g(mu_);
  on_want_ = std::move(fn);
}

void lock_owners::want(const std::string& r, const std::string& owner,
                       millis now, bool task, bool& notify) {
  auto& q = waiting_[r];
  auto it = std::find_if(q.begin(), q.end(),
                         [&](const waiter& w) { return w.owner == owner; });
  if (it == q.end())
    q.push_back(waiter{owner, now, task});
  else
    it->asked = now;
  if (!held_.count(r) && !requested_.count(r))
    notify = true;
}

bool lock_owners::try_take(const std::string& owner,
                           std::vector<std::string> locks, millis now) {
  std::sort(locks.begin(), locks.end());
  locks.erase(std::unique(locks.begin(), locks.end()), locks.end());
  bool notify = false;
  bool ok = true;
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> g(mu_);
    wake = on_want_;
    std::vector<std::string> kept; // held here and free: keep them
    for (const auto& r : locks) {
      auto o = owner_.find(r);
      bool mine = o != owner_.end() && o->second == owner;
      bool free = held_.count(r) && o == owner_.end();
      if (mine || free) {
        kept.push_back(r);
        continue;
      }
      want(r, owner, now, true, notify);
      ok = false;
      break; // the later ones only after this one: one order everywhere
    }
    if (!ok)
      for (const auto& r : kept)
        want(r, owner, now, true, notify);
    if (ok)
      for (const auto& r : locks) {
        owner_[r] = owner;
        auto& q = waiting_[r];
        q.erase(std::remove_if(q.begin(), q.end(),
                               [&](const waiter& w) { return w.owner == owner; }),
                q.end());
        if (q.empty())
          waiting_.erase(r);
      }
  }
  if (notify && wake)
    wake();
  return ok;
}

void lock_owners::wait(const std::string& owner, const std::string& r) {
  std::lock_guard<std::mutex> g(mu_);
  bool notify = false;
  if (owner_.count(r) && owner_[r] == owner)
    return;
  want(r, owner, 0, false, notify);
}

void lock_owners::drop(const std::string& owner) {
  std::lock_guard<std::mutex> g(mu_);
  for (auto it = owner_.begin(); it != owner_.end();) {
    if (it->second != owner) {
      ++it;
      continue;
    }
    recycle_.insert(it->first);
    it = owner_.erase(it);
  }
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    auto& q = it->second;
    q.erase(std::remove_if(q.begin(), q.end(),
                           [&](const waiter& w) { return w.owner == owner; }),
            q.end());
    it = q.empty() ? waiting_.erase(it) : std::next(it);
  }
}

bool lock_owners::owns(const std::string& owner, const std::string& r) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = owner_.find(r);
  return it != owner_.end() && it->second == owner;
}

std::vector<std::string>
lock_owners::owners_with_prefix(const std::string& prefix) const {
  std::lock_guard<std::mutex> g(mu_);
  std::set<std::string> out;
  for (const auto& [r, o] : owner_)
    if (o.rfind(prefix, 0) == 0)
      out.insert(o);
  for (const auto& [r, q] : waiting_)
    for (const auto& w : q)
      if (w.owner.rfind(prefix, 0) == 0)
        out.insert(w.owner);
  return {out.begin(), out.end()};
}

lock_owners::actions lock_owners::settle(millis now, millis idle_ms) {
  std::lock_guard<std::mutex> g(mu_);
  actions out;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    auto& q = it->second;
    q.erase(std::remove_if(q.begin(), q.end(),
                           [&](const waiter& w) {
                             return w.task && now - w.asked > idle_ms;
                           }),
            q.end());
    it = q.empty() ? waiting_.erase(it) : std::next(it);
  }
  // What an owner left goes back to the cluster first, for fairness.
  for (const auto& r : recycle_)
    if (held_.count(r) && !owner_.count(r)) {
      out.release.push_back(r);
      held_.erase(r);
      requested_.erase(r);
    }
  recycle_.clear();
  // A free resource goes to the first waiter that is not a task (tasks
  // take theirs when the ready queue looks again).
  for (const auto& r : held_) {
    if (owner_.count(r))
      continue;
    auto w = waiting_.find(r);
    if (w == waiting_.end())
      continue;
    auto& q = w->second;
    auto first = std::find_if(q.begin(), q.end(), [](const waiter& x) { return !x.task; });
    if (first == q.end())
      continue;
    owner_[r] = first->owner;
    out.assigned.emplace_back(first->owner, r);
    q.erase(first);
    if (q.empty())
      waiting_.erase(w);
  }
  for (const auto& [r, q] : waiting_)
    if (!held_.count(r) && requested_.insert(r).second)
      out.request.push_back(r);
  for (auto it = requested_.begin(); it != requested_.end();) {
    const auto& r = *it;
    if (owner_.count(r) || waiting_.count(r)) {
      ++it;
      continue;
    }
    out.release.push_back(r);
    held_.erase(r);
    it = requested_.erase(it);
  }
  return out;
}

void lock_owners::granted(const std::string& r) {
  std::lock_guard<std::mutex> g(mu_);
  if (requested_.count(r))
    held_.insert(r);
}

std::string lock_owners::lost(const std::string& r) {
  std::lock_guard<std::mutex> g(mu_);
  held_.erase(r);
  auto it = owner_.find(r);
  if (it == owner_.end())
    return {};
  auto who = it->second;
  owner_.erase(it);
  return who;
}

std::vector<lock_owners::row> lock_owners::rows() const {
  std::lock_guard<std::mutex> g(mu_);
  std::map<std::string, row> all;
  for (const auto& r : requested_) {
    all[r].resource = r;
    all[r].held = held_.count(r) > 0;
  }
  for (const auto& [r, o] : owner_) {
    all[r].resource = r;
    all[r].owner = o;
  }
  for (const auto& [r, q] : waiting_) {
    all[r].resource = r;
    for (const auto& w : q)
      all[r].waiters.push_back(w.owner);
  }
  std::vector<row> out;
  for (auto& [r, x] : all)
    out.push_back(std::move(x));
  return out;
}

} // namespace dice
