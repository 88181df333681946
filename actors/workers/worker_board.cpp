#include "workers/worker_board.hpp"

#include <algorithm>
#include <cctype>

#include "vocabulary/runner_capabilities.hpp"

namespace dice {

worker_board::worker_board(worker_board_config cfg) : cfg_(std::move(cfg)) {
}

std::string worker_board::kind_problem(const std::string& kind) const {
  if (kind.empty() || kind.size() > 64)
    return "a kind name has 1 to 64 characters";
  for (unsigned char c : kind)
    if (!std::isalnum(c) && c != '-' && c != '_' && c != '.' && c != ':')
      return "kind '" + kind + "': use letters, digits and - _ . : only";
  if (kind == evaluation_kind)
    return "kind '" + kind + "' is dice test's own";
  if (std::find(cfg_.own_kinds.begin(), cfg_.own_kinds.end(), kind)
      != cfg_.own_kinds.end())
    return "kind '" + kind + "' is built into this node: serve another name";
  return {};
}

std::optional<std::string>
worker_board::join(const std::vector<std::string>& kinds, std::size_t concurrency,
                   const std::string& name, millis now, std::string& why) {
  if (kinds.empty()) {
    why = "a worker serves at least one kind";
    return std::nullopt;
  }
  for (const auto& k : kinds)
    if (why = kind_problem(k); !why.empty())
      return std::nullopt;
  if (concurrency == 0 || concurrency > cfg_.max_concurrency) {
    why = "concurrency must be 1 to " + std::to_string(cfg_.max_concurrency);
    return std::nullopt;
  }
  if (sessions_.size() >= cfg_.max_workers) {
    why = "this node has " + std::to_string(cfg_.max_workers)
          + " workers already (--workers-max)";
    return std::nullopt;
  }
  auto id = cfg_.id_prefix + "w" + std::to_string(next_worker_++);
  session s;
  s.view.id = id;
  s.view.name = name;
  s.view.kinds = kinds;
  std::sort(s.view.kinds.begin(), s.view.kinds.end());
  s.view.kinds.erase(std::unique(s.view.kinds.begin(), s.view.kinds.end()),
                     s.view.kinds.end());
  s.view.concurrency = concurrency;
  s.view.joined_ms = now;
  s.last_seen = now;
  sessions_.emplace(id, std::move(s));
  ++counters_.joined;
  return id;
}

bool worker_board::knows(const std::string& worker) const {
  return sessions_.count(worker) > 0;
}

bool worker_board::serves(const session& s, const std::string& kind) const {
  return std::binary_search(s.view.kinds.begin(), s.view.kinds.end(), kind);
}

bool worker_board::served(const std::string& kind) const {
  return std::any_of(sessions_.begin(), sessions_.end(),
                     [&](const auto& s) { return serves(s.second, kind); });
}

std::string worker_board::label(const std::string& worker) const {
  const auto& name = sessions_.at(worker).view.name;
  return "worker " + worker + (name.empty() ? "" : " (" + name + ")");
}

bool worker_board::offer(worker_job j) {
  if (!served(j.kind))
    return false;
  auto kind = j.kind;
  queued_[kind].push_back(std::move(j));
  return true;
}

std::optional<std::string> worker_board::cancel(std::uint64_t job) {
  if (auto h = holder_.find(job); h != holder_.end()) {
    auto worker = h->second;
    auto& s = sessions_.at(worker);
    s.held.erase(job);
    s.view.holding = s.held.size();
    s.canceled.push_back(job);
    holder_.erase(h);
    return worker;
  }
  for (auto& [kind, q] : queued_) {
    auto it = std::find_if(q.begin(), q.end(),
                           [&](const worker_job& j) { return j.job == job; });
    if (it != q.end()) {
      q.erase(it);
      break;
    }
  }
  return std::nullopt;
}

bool worker_board::has_work(const std::string& worker) const {
  auto it = sessions_.find(worker);
  if (it == sessions_.end())
    return false;
  const auto& s = it->second;
  if (!s.canceled.empty())
    return true;
  if (s.held.size() >= s.view.concurrency)
    return false;
  return std::any_of(s.view.kinds.begin(), s.view.kinds.end(), [&](const auto& k) {
    auto q = queued_.find(k);
    return q != queued_.end() && !q->second.empty();
  });
}

worker_board::take_result worker_board::take(const std::string& worker,
                                             std::size_t max, millis now) {
  take_result r;
  auto it = sessions_.find(worker);
  if (it == sessions_.end())
    return r;
  auto& s = it->second;
  s.last_seen = now;
  r.canceled = std::move(s.canceled);
  s.canceled.clear();
  // Never more than it said it runs at once, whatever it asks.
  auto room = s.view.concurrency > s.held.size() ? s.view.concurrency - s.held.size() : 0;
  max = std::min(max, room);
  // The oldest job first, across the worker's kinds.
  while (r.jobs.size() < max) {
    std::deque<worker_job>* oldest = nullptr;
    for (const auto& k : s.view.kinds) {
      auto q = queued_.find(k);
      if (q != queued_.end() && !q->second.empty()
          && (oldest == nullptr || q->second.front().job < oldest->front().job))
        oldest = &q->second;
    }
    if (oldest == nullptr)
      break;
    auto j = std::move(oldest->front());
    oldest->pop_front();
    s.held.insert(j.job);
    holder_[j.job] = worker;
    r.jobs.push_back(std::move(j));
    ++counters_.jobs_handed;
  }
  s.view.holding = s.held.size();
  return r;
}

void worker_board::waiting(const std::string& worker, bool on, millis now) {
  auto it = sessions_.find(worker);
  if (it == sessions_.end())
    return;
  it->second.waiting = on;
  it->second.last_seen = now;
}

std::optional<job_end> worker_board::finish(const std::string& worker, job_end end,
                                            millis now) {
  auto it = sessions_.find(worker);
  if (it == sessions_.end())
    return std::nullopt;
  auto& s = it->second;
  s.last_seen = now;
  auto h = holder_.find(end.job);
  if (h == holder_.end() || h->second != worker) {
    ++counters_.late_answers;
    return std::nullopt;
  }
  holder_.erase(h);
  s.held.erase(end.job);
  s.view.holding = s.held.size();
  ++s.view.finished;
  ++counters_.jobs_finished;
  return end;
}

std::vector<job_end> worker_board::drop(const std::string& worker,
                                        const std::string& why) {
  std::vector<job_end> ends;
  auto it = sessions_.find(worker);
  if (it == sessions_.end())
    return ends;
  for (auto job : it->second.held) {
    holder_.erase(job);
    ends.push_back(job_end{job, false, false, why});
  }
  sessions_.erase(it);
  // Queued jobs of kinds nobody serves now would wait for ever.
  for (auto q = queued_.begin(); q != queued_.end();) {
    if (served(q->first)) {
      ++q;
      continue;
    }
    for (const auto& j : q->second)
      ends.push_back(job_end{j.job, false, false,
                             "no worker serves kind '" + j.kind + "' here any more"});
    q = queued_.erase(q);
  }
  counters_.jobs_lost += ends.size();
  return ends;
}

std::vector<job_end> worker_board::leave(const std::string& worker) {
  if (!knows(worker))
    return {};
  ++counters_.left;
  return drop(worker, label(worker) + " left while running it");
}

std::vector<job_end> worker_board::expire(millis now) {
  std::vector<job_end> ends;
  std::vector<std::string> lapsed;
  for (const auto& [id, s] : sessions_)
    if (!s.waiting && now - s.last_seen > cfg_.lease_ms)
      lapsed.push_back(id);
  for (const auto& id : lapsed) {
    ++counters_.lapsed;
    auto lost = drop(id, label(id) + " went silent: no request in "
                           + std::to_string(cfg_.lease_ms) + " ms");
    ends.insert(ends.end(), lost.begin(), lost.end());
  }
  return ends;
}

std::vector<std::string> worker_board::served_kinds() const {
  std::vector<std::string> all;
  for (const auto& [id, s] : sessions_)
    all.insert(all.end(), s.view.kinds.begin(), s.view.kinds.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

std::vector<worker_view> worker_board::workers() const {
  std::vector<worker_view> all;
  for (const auto& [id, s] : sessions_)
    all.push_back(s.view);
  return all;
}

std::size_t worker_board::queued() const {
  std::size_t n = 0;
  for (const auto& [kind, q] : queued_)
    n += q.size();
  return n;
}

} // namespace dice
