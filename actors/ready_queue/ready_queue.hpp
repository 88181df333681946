#pragma once
// The replica's ready tasks (the paper's waitToRunTasksQueue), in the order
// this node walks them: priority descending, then re-queued tasks (a retry,
// or recovered from a dead executor) before first attempts, so work that was
// interrupted is not delayed again, then a rendezvous hash of
// (task id, node id). Every node sees the same tasks but in its own order,
// so idle nodes rarely claim the same task and few claims lose the lottery.
// With an empty node id the order is the same on every node, the order the
// claim matching (claim_matching.hpp) takes tasks in, and first in, first
// out: after priority and retries, by a key the caller gives (the enqueue
// time and the enqueuer's count), so tasks heard later join behind and
// nodes that have heard different parts of a burst still agree on its head.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/hashes.hpp"

namespace dice {

class ready_queue {
public:
  explicit ready_queue(std::string node_id);

  /// Adds a task, or moves it if it is already here with another priority
  /// or retry flag. `retry`: an attempt after the first; walked first
  /// among tasks of its priority.
  void insert(const std::string& task_id, std::int32_t priority,
              bool retry = false, std::uint64_t fifo_key = 0);

  /// Removes a task; false if it was not here.
  bool erase(const std::string& task_id);

  bool contains(const std::string& task_id) const;
  std::size_t size() const { return by_id_.size(); }
  bool empty() const { return by_id_.empty(); }

  /// This node's next task to claim.
  std::optional<std::string> peek() const;

  /// This node's first `n` tasks, in order.
  std::vector<std::string> next(std::size_t n) const;

  /// The first `n` tasks not in `skip`, in order, grouped by class (same
  /// priority and retry flag).
  std::vector<std::vector<std::string>>
  next_by_class(std::size_t n, const std::set<std::string>& skip) const;

  const std::string& node_id() const { return node_id_; }

private:
  struct entry {
    std::int32_t priority;
    bool retry;
    std::uint64_t hash;
    std::string task_id;
  };
  // An entry's key with a view of the id: found and erased by it, no copy.
  struct key {
    std::int32_t priority;
    bool retry;
    std::uint64_t hash;
    std::string_view task_id;
  };
  struct walk_order {
    using is_transparent = void;
    bool operator()(const key& a, const key& b) const;
    bool operator()(const entry& a, const entry& b) const { return (*this)(view(a), view(b)); }
    bool operator()(const entry& a, const key& b) const { return (*this)(view(a), b); }
    bool operator()(const key& a, const entry& b) const { return (*this)(a, view(b)); }
  };
  static key view(const entry& e) { return {e.priority, e.retry, e.hash, e.task_id}; }
  struct rank {
    std::int32_t priority;
    bool retry;
    std::uint64_t fifo_key; // the common order's (empty node id)
    bool operator==(const rank& o) const {
      return priority == o.priority && retry == o.retry
             && fifo_key == o.fifo_key;
    }
  };
  key make_key(std::string_view task_id, rank r) const;
  void drop(const key& k);

  std::string node_id_;
  std::set<entry, walk_order> order_;
  // Rank per task, to rebuild an entry's key for erase (plain values
  // rather than iterators, so copies of the queue stay valid).
  std::unordered_map<std::string, rank> by_id_;
};

} // namespace dice
