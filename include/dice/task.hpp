#pragma once
// What an embedding program submits and what it hears back. Plain values:
// no CAF, no protobuf.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dice::embed {

/// A task to submit. The payload is bytes (a std::string may hold any).
struct task {
  std::string kind;
  std::string payload;
  std::int32_t priority = 0; // higher runs first
  /// Data objects of the task held per node id: the ranking prefers the
  /// node holding the most when claims compete.
  std::map<std::string, std::uint32_t> data_objects;
  /// Cluster-wide locks the task holds while it runs: no two tasks naming a
  /// common lock run at the same time anywhere in the cluster (the task
  /// waits, ready, while another holds one). Names: letters, digits, - _ . : /
  std::vector<std::string> locks;

  // The task's own policy; zero or empty takes the node's default.
  /// An execution running longer is stopped; it counts as a failed attempt.
  std::chrono::milliseconds time_limit{0};
  /// Executions that may fail before the task ends failed (1 to 100).
  std::uint32_t max_attempts = 0;
  /// Wait before the second attempt; each later one waits twice the one
  /// before (half of it drawn at random), up to the node's maximum.
  std::chrono::milliseconds backoff{0};
  /// No node starts it before this (a delay from now, or a point in time;
  /// give one of them).
  std::chrono::milliseconds delay{0};
  std::chrono::system_clock::time_point not_before{};
  /// Not started by then, it ends "expired" and never runs.
  std::chrono::system_clock::time_point expires{};
  /// Kept this long after it ends, then forgotten by every node; negative:
  /// the node's --keep-finished-ms (a day).
  std::chrono::milliseconds keep_for{-1};
  /// Idempotency key: the same key submitted again, at any node, is the
  /// same task (submit returns its id).
  std::string key;
  /// Runs once these tasks are done (their ids); a kind added with
  /// parents (node::add_kind) receives their results. A parent that fails,
  /// expires or is canceled or removed cancels it, unless
  /// `run_after_parent_failure`: then it runs once every parent ended.
  std::vector<std::string> after;
  bool run_after_parent_failure = false;
};

/// A parent's end, as a task that runs after it receives it.
struct parent {
  std::string id;
  std::string state;            // "done", or "failed", "expired", ...
  std::string result_or_reason; // done: its result; otherwise why it ended
};

/// A change of a task's replicated state, as this node learnt it.
struct task_event {
  std::string id;
  std::string kind;
  /// "ready", "claimed" (by a node, ahead of a free slot), "running",
  /// "done", "failed", "expired", "canceled" or "removed".
  std::string state;
  std::string node; // the node running (or that ran) it; empty if none
  std::uint32_t attempts = 0;
  std::string result; // when done
  std::string reason; // when failed or canceled
  /// Wall-clock ms since the epoch, 0 while unknown: when the attempt that
  /// ended the task became ready, started and finished.
  std::int64_t ready_at_ms = 0;
  std::int64_t started_at_ms = 0;
  std::int64_t finished_at_ms = 0;

  /// done, failed, expired, canceled or removed: nothing more will happen.
  bool ended() const {
    return state == "done" || state == "failed" || state == "expired"
           || state == "canceled" || state == "removed";
  }
};

/// A causal event (publish / on_message): every node delivers the events of
/// the cluster in an order that respects cause and effect (an event
/// published after delivering another comes after it everywhere), each once.
struct message {
  std::string topic;
  std::string data;
  std::string origin;   // the node that published it
  std::uint64_t seq = 0; // its number among the origin's events
  std::int64_t time_ms = 0; // the origin's wall clock when published
};

/// What a task kind's function returns.
struct outcome {
  bool ok = false;
  std::string result_or_reason; // result on success, reason on failure

  static outcome success(std::string result) { return {true, std::move(result)}; }
  static outcome failure(std::string reason) { return {false, std::move(reason)}; }
};

/// A task kind as a function. It runs on one of the node's slot threads
/// (never on the actor scheduler), so it may block; long work should poll
/// `canceled()` and return early. An exception counts as a failure.
using kind_function = std::function<outcome(const std::string& payload,
                                            const std::function<bool()>& canceled)>;
/// The same, receiving the ends of the task's parents (task::after), in
/// the order the task named them (none for a task without parents).
using kind_function_with_parents =
  std::function<outcome(const std::string& payload,
                        const std::vector<parent>& parents,
                        const std::function<bool()>& canceled)>;

} // namespace dice::embed
