#include "ready_queue/ready_queue.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace dice {

bool ready_queue::walk_order::operator()(const key& a, const key& b) const {
  // Higher priority first, then retries, then the hash (or FIFO key); the
  // task id settles a tie.
  return std::tie(b.priority, b.retry, a.hash, a.task_id)
         < std::tie(a.priority, a.retry, b.hash, b.task_id);
}

ready_queue::ready_queue(std::string node_id) : node_id_(std::move(node_id)) {
  // nop
}

ready_queue::key ready_queue::make_key(std::string_view task_id, rank r) const {
  return key{r.priority, r.retry,
             node_id_.empty() ? r.fifo_key : rendezvous_hash(task_id, node_id_),
             task_id};
}

void ready_queue::drop(const key& k) {
  if (auto o = order_.find(k); o != order_.end())
    order_.erase(o);
}

void ready_queue::insert(const std::string& task_id, std::int32_t priority,
                         bool retry, std::uint64_t fifo_key) {
  rank r{priority, retry, fifo_key};
  auto [i, added] = by_id_.emplace(task_id, r);
  if (!added) {
    if (i->second == r)
      return;
    drop(make_key(task_id, i->second));
    i->second = r;
  }
  auto k = make_key(task_id, r);
  order_.insert(entry{k.priority, k.retry, k.hash, task_id});
}

bool ready_queue::erase(const std::string& task_id) {
  auto i = by_id_.find(task_id);
  if (i == by_id_.end())
    return false;
  drop(make_key(task_id, i->second));
  by_id_.erase(i);
  return true;
}

bool ready_queue::contains(const std::string& task_id) const {
  return by_id_.count(task_id) > 0;
}

std::optional<std::string> ready_queue::peek() const {
  if (order_.empty())
    return std::nullopt;
  return order_.begin()->task_id;
}

std::vector<std::string> ready_queue::next(std::size_t n) const {
  std::vector<std::string> result;
  result.reserve(std::min(n, order_.size()));
  for (auto i = order_.begin(); i != order_.end() && result.size() < n; ++i)
    result.push_back(i->task_id);
  return result;
}

std::vector<std::vector<std::string>>
ready_queue::next_by_class(std::size_t n,
                           const std::set<std::string>& skip) const {
  std::vector<std::vector<std::string>> result;
  const entry* last = nullptr;
  for (auto i = order_.begin(); i != order_.end() && n > 0; ++i) {
    if (skip.count(i->task_id) > 0)
      continue;
    if (last == nullptr || last->priority != i->priority
        || last->retry != i->retry)
      result.emplace_back();
    result.back().push_back(i->task_id);
    last = &*i;
    --n;
  }
  return result;
}

} // namespace dice
