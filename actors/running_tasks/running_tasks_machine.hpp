#pragma once
// The running_tasks subsystem: this node's executions, which it alone
// holds (started when ranking says a claim won; judged against every
// merged state: stopped when a better claim or the task's end is merged,
// re-claimed when the task was re-queued while it ran; RUNNING heartbeats
// while they run; the outcome reported as INFO when the executor is done)
// and the executions of others, watched through their heartbeats:
// silence past a deadline, or the executor's death, re-queues the task as
// READY(attempt+1), a state every node computes alike.
#include <map>
#include <optional>
#include <random>
#include <string>

#include "common/pause_detector.hpp"
#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_counters.hpp"
#include "vocabulary/queue_events.hpp"
#include "running_tasks/running_tasks.hpp"

namespace dice {

class running_tasks_machine {
public:
  running_tasks_machine(std::string id, queue_config cfg, std::uint64_t seed);

  void on(const ev::task_changed& e, millis now, ev::events& out);
  void on(const ev::running_heard& e, millis now, ev::events& out);
  void on(const ev::claim_heard& e, millis now, ev::events& out);
  void on(const ev::start_execution& e, millis now, ev::events& out);
  void on(const ev::execution_begun& e, millis now, ev::events& out);
  void on(const ev::execution_report& e, millis now, ev::events& out);
  void on(const ev::recover_member& e, millis now, ev::events& out);
  /// Start marks and RUNNING heartbeats due, and re-queues of silent
  /// executors.
  void tick(millis now, ev::events& out);
  /// While any execution runs, here or watched elsewhere, every tick;
  /// else when a claim of ours heard merged is forgotten.
  std::optional<millis> next_due() const;

  const running_tasks& running() const { return running_; }
  const queue_counters& counters() const { return counters_; }

private:
  // Stops or re-claims our execution of a task whose merged state is `s`.
  void judge(const std::string& task_id, const wire::TaskState& s,
             ev::events& out);
  void stop(const std::string& task_id, ev::events& out);
  /// Tells the others that our execution of `task_id` began, if a slot
  /// took it at least start_mark_delay_ms ago and it still holds its claim.
  void mark_start(const std::string& task_id, running_tasks::execution& x,
                  millis now, ev::events& out);
  /// Originates the DONE or FAILED state `s` that ends our execution.
  void report_end(const std::string& task_id, const wire::TaskState& s,
                  millis now, ev::events& out);
  void requeue(const std::string& task_id, std::uint32_t next_attempt,
               millis now, ev::events& out, millis not_before = 0);
  /// How long a retry waits after `failed_attempt` failed: the task's
  /// backoff (or the node's), doubled per attempt, capped, jittered.
  millis retry_wait(std::uint32_t failed_attempt, millis task_backoff);
  millis deadline(millis now);

  std::string id_;
  queue_config cfg_;
  std::mt19937_64 rng_;
  pause_detector pauses_;
  running_tasks running_;
  // The merged state of each of our executions, as last heard.
  std::map<std::string, wire::TaskState> states_;
  // Tasks whose merged state named a claim of ours not executing here
  // yet, and their merged state since, as last heard: ranking may hand the
  // execution over after that state moved on (each actor reads its own
  // mailbox), and the execution is judged against it then. Forgotten a
  // running timeout after the claim, when ranking has given it up.
  struct named_claim {
    wire::TaskState state;
    millis forget_at = 0;
  };
  std::map<std::string, named_claim> named_;
  queue_counters counters_;
};

/// The machine its actor runs (queue/), built the same in unit tests.
running_tasks_machine make_running_tasks_machine(const machine_config& c);

} // namespace dice
