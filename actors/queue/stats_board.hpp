#pragma once
// Where the queue's subsystems post their counters after each input they
// handle, so a stats question is answered from here at once. Asking the
// subsystems instead waits behind the protocol messages queued in their
// mailboxes: with 100,000 tasks being submitted that took up to 300 ms.
// The same for what the cluster runs, which every submit checks: read
// here, it costs a submit no question to an actor. Each subsystem owns
// its figures; the board only holds their last copy.
#include <array>
#include <cstddef>
#include <mutex>
#include <vector>

#include "known_tasks/task_query.hpp"
#include "vocabulary/queue_counters.hpp"
#include "vocabulary/runner_capabilities.hpp"

namespace dice {

class stats_board {
public:
  /// The subsystems that count (the others have nothing to post).
  enum class poster : std::size_t {
    communication,
    known_tasks,
    ranking,
    ready_queue,
    running_tasks,
    count
  };

  void post(poster who, const queue_counters& c);
  void post(const task_counts& c);

  /// The sum of every subsystem's last posted counters.
  queue_counters total() const;
  /// The replica's tasks per state, as known_tasks last posted them.
  task_counts counts() const;

  /// What this node runs (posted by the facade, as the worker hub tells
  /// it) and what its live peers run (by communication, as their
  /// heartbeats say).
  void post_own(const runner_capabilities& r);
  void post_peers(std::vector<runner_capabilities> r);
  /// This node's first, then its live peers'.
  std::vector<runner_capabilities> runners() const;

private:
  mutable std::mutex mutex_;
  std::array<queue_counters, static_cast<std::size_t>(poster::count)> posted_{};
  task_counts counts_;
  runner_capabilities own_;
  std::vector<runner_capabilities> peers_;
};

} // namespace dice
