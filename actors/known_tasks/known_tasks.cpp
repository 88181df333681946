#include "known_tasks/known_tasks.hpp"

#include "ready_queue/ready_queue.hpp"

namespace dice {

wire::TaskState initial_state() {
  wire::TaskState s;
  s.set_phase(wire::READY);
  s.set_attempt(1);
  return s;
}

void known_tasks::rehash(const std::string& task_id, const known_task& task) {
  auto h = fnv1a_64(task_id);
  if (task.has_spec)
    h = fnv1a_64(task.spec.SerializeAsString(), h ^ 1);
  h = fnv1a_64(task.state.SerializeAsString(), h);
  auto& old = hashes_[task_id];
  digest_ ^= old ^ h; // XOR: the digest ignores the order of tasks
  old = h;
}

bool known_tasks::learn_spec(const wire::TaskSpec& spec) {
  if (spec.id().empty())
    return false;
  auto& entry = tasks_[spec.id()];
  if (entry.has_spec)
    return false;
  entry.has_spec = true;
  entry.spec = spec;
  rehash(spec.id(), entry);
  return true;
}

bool known_tasks::merge_state(const std::string& task_id,
                              const wire::TaskState& update) {
  if (task_id.empty())
    return false;
  auto [i, added] = tasks_.try_emplace(task_id);
  // A fresh entry holds the bottom state (READY, attempt 0): any real
  // update is above it, and merging it first keeps the result a pure merge.
  bool changed = merge_into(i->second.state, update) || added;
  if (changed)
    rehash(task_id, i->second);
  return changed;
}

const known_task* known_tasks::find(const std::string& task_id) const {
  auto i = tasks_.find(task_id);
  return i == tasks_.end() ? nullptr : &i->second;
}

bool known_tasks::has_spec(const std::string& task_id) const {
  auto t = find(task_id);
  return t != nullptr && t->has_spec;
}

bool known_tasks::same_as(const known_tasks& other) const {
  // Equal replicas have equal digests: a differing digest settles it
  // without comparing every task.
  if (tasks_.size() != other.tasks_.size() || digest_ != other.digest_)
    return false;
  auto j = other.tasks_.begin();
  for (auto i = tasks_.begin(); i != tasks_.end(); ++i, ++j) {
    if (i->first != j->first || i->second.has_spec != j->second.has_spec)
      return false;
    if (i->second.spec.SerializeAsString() != j->second.spec.SerializeAsString())
      return false;
    if (compare_states(i->second.state, j->second.state) != 0)
      return false;
  }
  return true;
}

} // namespace dice
