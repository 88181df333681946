#pragma once
// The paper's locally known tasks map, as a replica: per task its immutable
// spec (once known) and its merged TaskState. Every update is a merge, so two
// replicas that saw the same updates in any order hold the same map.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "dice.pb.h"
#include "known_tasks/task_query.hpp"
#include "known_tasks/task_state.hpp"

namespace dice {

struct known_task {
  /// False while only the state is known (a message named an unknown task).
  bool has_spec = false;
  wire::TaskSpec spec;
  wire::TaskState state;
  /// Its term of the replica's digest, and the part of it that the id and
  /// spec make (kept so a change of state does not serialize the spec).
  std::uint64_t hash = 0;
  std::uint64_t spec_hash = 0;
};

class known_tasks {
public:
  /// Learns the spec of a task; true if it was not known before or `spec`
  /// replaces it. Specs of one id differ only when one idempotency key was
  /// submitted at two nodes: then every replica keeps the same one, the
  /// first enqueued (spec_precedes), whatever order they arrive in.
  bool learn_spec(const wire::TaskSpec& spec);

  /// Merges `update` into the task's state (creating a spec-less entry if
  /// needed); true if the merged state changed.
  bool merge_state(const std::string& task_id, const wire::TaskState& update);

  /// Drops the task (its retention passed); false if it is not held.
  bool forget(const std::string& task_id);

  const known_task* find(const std::string& task_id) const;
  bool has_spec(const std::string& task_id) const;

  const std::map<std::string, known_task>& tasks() const { return tasks_; }
  std::size_t size() const { return tasks_.size(); }

  /// True if both replicas hold the same specs and states.
  bool same_as(const known_tasks& other) const;

  /// Order-independent digest of every (id, spec, state), kept up to date
  /// incrementally: replicas with equal digests almost surely hold the same.
  std::uint64_t digest() const { return digest_; }

  /// Tasks whose spec is known, per state: kept as tasks change, so a
  /// stats question costs nothing with 100,000 tasks held. Schedules'
  /// records are not counted: what users see counted (/stats, /metrics,
  /// dice status, the dashboard) are the tasks they list.
  const task_counts& counts() const { return counts_; }

private:
  // Updates the task's digest term; `spec`: its id's and spec's part
  // changed too (a new entry, or a spec learnt).
  void rehash(const std::string& task_id, known_task& task, bool spec);
  void count(const wire::TaskSpec& spec, const wire::TaskState& state, int by);

  std::map<std::string, known_task> tasks_;
  std::uint64_t digest_ = 0;
  task_counts counts_;
};

/// The order between two enqueues of one id (one key): earlier enqueue
/// time, then enqueuer id. Enqueues of one node at one time are one.
bool spec_precedes(const wire::TaskSpec& a, const wire::TaskSpec& b);

/// The state an ENQUEUE creates: READY, first attempt.
wire::TaskState initial_state();

} // namespace dice
