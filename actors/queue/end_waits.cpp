#include "queue/end_waits.hpp"

namespace dice {

std::optional<end_waits::ticket> end_waits::add(const std::string& id) {
  if (task_of_.size() >= limit_)
    return std::nullopt;
  auto t = next_++;
  task_of_.emplace(t, id);
  waits_on_[id].insert(t);
  return t;
}

std::vector<end_waits::ticket> end_waits::take(const std::string& id) {
  auto it = waits_on_.find(id);
  if (it == waits_on_.end())
    return {};
  std::vector<ticket> out(it->second.begin(), it->second.end());
  waits_on_.erase(it);
  for (auto t : out)
    task_of_.erase(t);
  return out;
}

std::optional<std::string> end_waits::take(ticket t) {
  auto it = task_of_.find(t);
  if (it == task_of_.end())
    return std::nullopt;
  auto on = waits_on_.find(it->second);
  on->second.erase(t);
  if (on->second.empty())
    waits_on_.erase(on);
  auto id = std::move(it->second);
  task_of_.erase(it);
  return id;
}

} // namespace dice
