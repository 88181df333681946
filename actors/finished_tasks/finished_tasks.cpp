#include "finished_tasks/finished_tasks.hpp"

#include "known_tasks/task_state.hpp"

namespace dice {

bool finished_tasks::record(const std::string& task_id,
                            const wire::TaskState& state) {
  if (!is_terminal(state.phase()))
    return false;
  finish_info info{state.phase(),         state.attempt(),
                   state.claim().node_id(), state.result(),
                   state.reason(),        state.finished_time_ms()};
  auto i = finished_.find(task_id);
  if (i != finished_.end() && i->second.phase == info.phase
      && i->second.attempt == info.attempt && i->second.node == info.node
      && i->second.result == info.result)
    return false;
  finished_[task_id] = std::move(info);
  return true;
}

const finish_info* finished_tasks::find(const std::string& task_id) const {
  auto i = finished_.find(task_id);
  return i == finished_.end() ? nullptr : &i->second;
}

std::size_t finished_tasks::count(wire::TaskPhase phase) const {
  std::size_t n = 0;
  for (const auto& [id, info] : finished_)
    n += info.phase == phase ? 1 : 0;
  return n;
}

} // namespace dice
