#pragma once
// The paper's map of tasks in execution, both facets: executions by other
// nodes, watched through their RUNNING heartbeats (silence past a deadline
// means the executor is gone), and this node's own executions, which owe
// the others a RUNNING heartbeat every interval.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

class running_tasks {
public:
  // -- executions by others ---------------------------------------------------

  struct watched {
    std::uint32_t attempt = 0;
    std::string node;
    millis deadline = 0;
    /// Overdue, the executor was asked about it this many times since it
    /// was last heard; the deadline is now the last answer's.
    std::uint32_t asked = 0;
  };

  /// The merged state says `node` runs `attempt`: watch it. A new (attempt,
  /// node) starts a fresh deadline; the same one keeps its deadline.
  void watch(const std::string& task_id, std::uint32_t attempt,
             const std::string& node, millis deadline);

  /// A RUNNING heartbeat for the watched (attempt, node): push the deadline
  /// (and forget a question: the executor lives).
  void heard(const std::string& task_id, std::uint32_t attempt,
             const std::string& node, millis deadline);

  void unwatch(const std::string& task_id);

  /// Watched tasks whose deadline has passed, each reported once (the caller
  /// re-queues them, which changes their state).
  std::vector<std::string> overdue(millis now);
  /// An overdue task whose executor was asked about it (once more):
  /// overdue again, unless something changes, at `deadline`.
  void asked(const std::string& task_id, millis deadline);
  /// Every pending deadline `by` later: this node was paused, and the
  /// heartbeats of that time are still unread.
  void postpone(millis by);

  /// Watched tasks run by `node`.
  std::vector<std::string> run_by(const std::string& node) const;

  const watched* find_watched(const std::string& task_id) const;
  std::size_t watched_count() const { return others_.size(); }

  // -- own executions ---------------------------------------------------------

  struct execution {
    /// The attempt the executor was started for (it reports that one).
    std::uint32_t started_attempt = 0;
    /// The attempt this execution now stands for: a re-queue while it runs
    /// makes it claim the new attempt instead of starting over.
    std::uint32_t attempt = 0;
    wire::Claim claim;
    millis next_heartbeat = 0;
    /// When the attempt became ready and when its execution started
    /// (wall-clock ms), reported with its end for the ready-to-start latency.
    millis ready_ms = 0;
    millis started_ms = 0;
    /// When a slot took it (0: it waits for one, claimed ahead), and
    /// whether the others were told for the attempt it stands for.
    millis begun_ms = 0;
    bool begun_told = false;
    /// The task's own retry policy (0: the node's).
    std::uint32_t max_attempts = 0;
    millis backoff_ms = 0;
    millis expires_ms = 0;
  };

  void start(const std::string& task_id, std::uint32_t attempt,
             const wire::Claim& claim, millis next_heartbeat);
  execution* mine(const std::string& task_id);
  const execution* mine(const std::string& task_id) const;
  bool stop(const std::string& task_id);

  /// Own executions whose heartbeat is due; reschedules them `interval` on.
  std::vector<std::string> heartbeats_due(millis now, millis interval);

  std::size_t executing() const { return mine_.size(); }
  const std::map<std::string, execution>& executions() const { return mine_; }
  std::map<std::string, execution>& executions() { return mine_; }

private:
  std::map<std::string, watched> others_;
  std::map<std::string, execution> mine_;
};

} // namespace dice
