#include "known_tasks/known_tasks.hpp"

#include "common/hashes.hpp"

namespace dice {

wire::TaskState initial_state() {
  wire::TaskState s;
  s.set_phase(wire::READY);
  s.set_attempt(1);
  return s;
}

void known_tasks::rehash(const std::string& task_id, known_task& task,
                         bool spec) {
  if (spec) {
    task.spec_hash = fnv1a_64(task_id);
    if (task.has_spec)
      task.spec_hash = fnv1a_64(task.spec.SerializeAsString(), task.spec_hash ^ 1);
  }
  auto h = fnv1a_64(task.state.SerializeAsString(), task.spec_hash);
  digest_ ^= task.hash ^ h; // XOR: the digest ignores the order of tasks
  task.hash = h;
}

void known_tasks::count(const wire::TaskSpec& spec, const wire::TaskState& state,
                        int by) {
  // A schedule's record is no task: never claimed, READY until removed.
  if (spec.has_schedule())
    return;
  // A phase off the enum (a peer's newer or hostile message) is not counted.
  auto p = static_cast<std::size_t>(state.phase());
  if (p < counts_.by_phase.size())
    counts_.by_phase[p] += by;
  if (claimed_ahead(state))
    counts_.claimed_ahead += by;
}

bool spec_precedes(const wire::TaskSpec& a, const wire::TaskSpec& b) {
  if (a.enqueue_time_ms() != b.enqueue_time_ms())
    return a.enqueue_time_ms() < b.enqueue_time_ms();
  return a.enqueuer() < b.enqueuer();
}

bool known_tasks::learn_spec(const wire::TaskSpec& spec) {
  if (spec.id().empty())
    return false;
  auto& entry = tasks_[spec.id()];
  if (entry.has_spec && !spec_precedes(spec, entry.spec))
    return false;
  if (entry.has_spec)
    count(entry.spec, entry.state, -1);
  entry.has_spec = true;
  entry.spec = spec;
  entry.spec.clear_inputs(); // the replica's own to fill, never a peer's
  count(entry.spec, entry.state, +1);
  rehash(spec.id(), entry, true);
  return true;
}

bool known_tasks::merge_state(const std::string& task_id,
                              const wire::TaskState& update) {
  if (task_id.empty())
    return false;
  auto [i, added] = tasks_.try_emplace(task_id);
  auto& task = i->second;
  auto before = task.state;
  // A fresh entry holds the bottom state (READY, attempt 0): any real
  // update is above it, and merging it first keeps the result a pure merge.
  bool changed = merge_into(task.state, update) || added;
  if (changed) {
    rehash(task_id, task, added); // a new entry: its id's part too
    if (task.has_spec) {
      count(task.spec, before, -1);
      count(task.spec, task.state, +1);
    }
  }
  return changed;
}

bool known_tasks::forget(const std::string& task_id) {
  auto i = tasks_.find(task_id);
  if (i == tasks_.end())
    return false;
  if (i->second.has_spec)
    count(i->second.spec, i->second.state, -1);
  digest_ ^= i->second.hash;
  tasks_.erase(i);
  return true;
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
