#include "embed/task_ends.hpp"

namespace dice::embed {

std::optional<task_event> task_ends::end_of(const std::string& id) const {
  auto it = ended_.find(id);
  if (it == ended_.end())
    return std::nullopt;
  return it->second;
}

std::optional<task_ends::ticket> task_ends::wait(const std::string& id, owner who) {
  if (waits_.size() >= waiting_limit_)
    return std::nullopt;
  auto t = next_++;
  waits_.emplace(t, wait_entry{id, who});
  by_task_[id].insert(t);
  by_owner_[who].insert(t);
  return t;
}

std::vector<task_ends::ticket> task_ends::learn(const task_event& ev) {
  if (!ev.ended())
    return {};
  // A later end replaces an earlier one (removed after done).
  auto [it, fresh] = ended_.insert_or_assign(ev.id, ev);
  if (fresh)
    order_.push_back(ev.id);
  while (order_.size() > ended_limit_) {
    ended_.erase(order_.front());
    order_.pop_front();
  }
  auto waiting = by_task_.find(ev.id);
  return waiting == by_task_.end() ? std::vector<ticket>{} : forget_all(waiting->second);
}

std::vector<task_ends::ticket> task_ends::drop(owner who) {
  auto it = by_owner_.find(who);
  return it == by_owner_.end() ? std::vector<ticket>{} : forget_all(it->second);
}

std::vector<task_ends::ticket> task_ends::forget_all(std::set<ticket> tickets) {
  std::vector<ticket> out(tickets.begin(), tickets.end());
  for (auto t : out)
    forget(t);
  return out;
}

std::vector<task_ends::ticket> task_ends::clear() {
  std::vector<ticket> out;
  for (auto& [t, w] : waits_)
    out.push_back(t);
  waits_.clear();
  by_task_.clear();
  by_owner_.clear();
  return out;
}

void task_ends::forget(ticket t) {
  auto it = waits_.find(t);
  if (it == waits_.end())
    return;
  auto erase_from = [t](auto& index, const auto& key) {
    auto i = index.find(key);
    if (i != index.end() && i->second.erase(t) > 0 && i->second.empty())
      index.erase(i);
  };
  erase_from(by_task_, it->second.id);
  erase_from(by_owner_, it->second.who);
  waits_.erase(it);
}

} // namespace dice::embed
