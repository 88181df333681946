#include "simulation/retention_watch.hpp"

#include "known_tasks/task_state.hpp"

namespace dice {

void retention_watch::listed(const std::string& node, millis now,
                             const std::vector<task_row>& rows) {
  auto& v = nodes_[node];
  std::set<std::string> ended_now, held;
  for (const auto& r : rows) {
    const auto& id = r.spec.id();
    if (auto f = v.forgotten_at.find(id); f != v.forgotten_at.end())
      back_.push_back(id + " forgotten by " + node + " at "
                      + std::to_string(f->second) + " is back there at "
                      + std::to_string(now) + ", "
                      + r.state.ShortDebugString()
                      + (r.has_spec ? "" : " (by id alone)"));
    // Held by id alone, a task is not yet the replica's own: its end
    // leaving the replica is not the task forgotten there.
    if (!r.has_spec)
      continue;
    held.insert(id);
    if (is_terminal(r.state.phase()))
      ended_now.insert(id);
  }
  for (const auto& id : v.ended_held)
    if (held.count(id) == 0)
      v.forgotten_at.emplace(id, now);
  v.ended_held = std::move(ended_now);
}

void retention_watch::restarted(const std::string& node, bool journal) {
  auto& v = nodes_[node];
  v.ended_held.clear();
  if (!journal)
    v.forgotten_at.clear();
}

std::vector<std::string>
retention_watch::violations(const std::vector<sim_run>& runs) const {
  auto out = back_;
  for (const auto& r : runs) {
    auto n = nodes_.find(r.node);
    if (n == nodes_.end())
      continue;
    auto f = n->second.forgotten_at.find(r.task_id);
    if (f != n->second.forgotten_at.end() && r.start >= f->second)
      out.push_back(r.task_id + " started on " + r.node + " at "
                    + std::to_string(r.start) + ", after it forgot it at "
                    + std::to_string(f->second));
  }
  return out;
}

} // namespace dice
