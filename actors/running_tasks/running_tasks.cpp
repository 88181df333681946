#include "running_tasks/running_tasks.hpp"

namespace dice {

void running_tasks::watch(const std::string& task_id, std::uint32_t attempt,
                          const std::string& node, millis deadline) {
  auto i = others_.find(task_id);
  if (i != others_.end() && i->second.attempt == attempt
      && i->second.node == node)
    return;
  others_[task_id] = watched{attempt, node, deadline};
}

void running_tasks::heard(const std::string& task_id, std::uint32_t attempt,
                          const std::string& node, millis deadline) {
  auto i = others_.find(task_id);
  if (i != others_.end() && i->second.attempt == attempt
      && i->second.node == node
      && (deadline > i->second.deadline || i->second.asked > 0)) {
    i->second.deadline = deadline;
    i->second.asked = 0;
  }
}

void running_tasks::asked(const std::string& task_id, millis deadline) {
  if (auto i = others_.find(task_id); i != others_.end()) {
    ++i->second.asked;
    i->second.deadline = deadline;
  }
}

void running_tasks::unwatch(const std::string& task_id) {
  auto i = others_.find(task_id);
  if (i == others_.end())
    return;
  others_.erase(i);
}

std::vector<std::string> running_tasks::overdue(millis now) {
  std::vector<std::string> result;
  for (auto& [id, w] : others_)
    if (w.deadline <= now) {
      result.push_back(id);
      // Not again until the state (and so the watch) changes.
      w.deadline = INT64_MAX;
    }
  return result;
}

void running_tasks::postpone(millis by) {
  for (auto& [id, w] : others_)
    if (w.deadline != INT64_MAX)
      w.deadline += by;
}

std::vector<std::string> running_tasks::run_by(const std::string& node) const {
  std::vector<std::string> result;
  for (const auto& [id, w] : others_)
    if (w.node == node)
      result.push_back(id);
  return result;
}

const running_tasks::watched*
running_tasks::find_watched(const std::string& task_id) const {
  auto i = others_.find(task_id);
  return i == others_.end() ? nullptr : &i->second;
}

void running_tasks::start(const std::string& task_id, std::uint32_t attempt,
                          const wire::Claim& claim, millis next_heartbeat) {
  mine_[task_id] = execution{attempt, attempt, claim, next_heartbeat, 0, 0};
}

running_tasks::execution* running_tasks::mine(const std::string& task_id) {
  auto i = mine_.find(task_id);
  return i == mine_.end() ? nullptr : &i->second;
}

const running_tasks::execution*
running_tasks::mine(const std::string& task_id) const {
  auto i = mine_.find(task_id);
  return i == mine_.end() ? nullptr : &i->second;
}

bool running_tasks::stop(const std::string& task_id) {
  return mine_.erase(task_id) > 0;
}

std::vector<std::string> running_tasks::heartbeats_due(millis now,
                                                       millis interval) {
  std::vector<std::string> result;
  for (auto& [id, e] : mine_)
    if (e.next_heartbeat <= now) {
      result.push_back(id);
      e.next_heartbeat = now + interval;
    }
  return result;
}

} // namespace dice
