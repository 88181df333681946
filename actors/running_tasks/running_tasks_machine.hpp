#pragma once
// The running_tasks subsystem: this node's executions (started when ranking
// says a claim won, stopped when it lost or the task ended, RUNNING
// heartbeats while they run, the outcome reported as INFO when the executor
// is done) and the executions of others, watched through their heartbeats:
// silence past a deadline, or the executor's death, re-queues the task as
// READY(attempt+1), a state every node computes alike.
#include <map>
#include <optional>
#include <random>
#include <string>

#include "common/pause_detector.hpp"
#include "queue_node/queue_config.hpp"
#include "queue_node/queue_counters.hpp"
#include "queue_node/queue_events.hpp"
#include "running_tasks/running_tasks.hpp"

namespace dice {

class running_tasks_machine {
public:
  running_tasks_machine(std::string id, queue_config cfg, std::uint64_t seed);

  void on(const ev::task_changed& e, millis now, ev::events& out);
  void on(const ev::running_heard& e, millis now, ev::events& out);
  void on(const ev::start_execution& e, millis now, ev::events& out);
  void on(const ev::stop_execution& e, millis now, ev::events& out);
  void on(const ev::reclaim_execution& e, millis now, ev::events& out);
  void on(const ev::execution_report& e, millis now, ev::events& out);
  void on(const ev::recover_member& e, millis now, ev::events& out);
  /// RUNNING heartbeats due, and re-queues of silent executors.
  void tick(millis now, ev::events& out);
  /// While any execution runs, here or watched elsewhere, every tick.
  std::optional<millis> next_due() const {
    if (running_.executing() > 0 || running_.watched_count() > 0)
      return millis{0};
    return std::nullopt;
  }

  const running_tasks& running() const { return running_; }
  const queue_counters& counters() const { return counters_; }

private:
  /// Originates the DONE or FAILED state `s` that ends our execution.
  void report_end(const std::string& task_id, const wire::TaskState& s,
                  millis now, ev::events& out);
  void requeue(const std::string& task_id, std::uint32_t next_attempt,
               millis now, ev::events& out);
  millis deadline(millis now);

  std::string id_;
  queue_config cfg_;
  std::mt19937_64 rng_;
  pause_detector pauses_;
  running_tasks running_;
  // The merged state of each of our executions, as last heard.
  std::map<std::string, wire::TaskState> states_;
  queue_counters counters_;
};

} // namespace dice
