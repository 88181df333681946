#pragma once
// Who on this node uses the cluster-wide locks the node holds: a task about
// to run (its locks taken at once, all or none) or a `dice lock` client
// (queued until its lock is free). One owner per resource. The node asks the
// cluster (the mutex algorithm) for a resource somebody here waits for, and
// gives back one nobody here uses or waits for. Shared by the ready queue
// (which asks, from its actor, whether a task may be claimed now) and the
// mutex actor (which feeds it grants), hence its own lock. No CAF.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/time.hpp"

namespace dice {

/// A task attempt's owner name: "task:ID#ATTEMPT". The attempt tells a late
/// event about an earlier attempt from one about the attempt that runs.
inline std::string task_owner(const std::string& task_id, std::uint32_t attempt) {
  return "task:" + task_id + "#" + std::to_string(attempt);
}

class lock_owners {
public:
  /// Called (outside the lock) when a resource is wanted that the node does
  /// not hold or ask for yet: the mutex actor should settle().
  void on_want(std::function<void()> fn);

  /// A task may start only with all its locks: true, and they are `owner`'s
  /// until drop(), if the node holds every one and no other owner has any.
  /// Otherwise false, and the first missing one in name order is wanted for
  /// `owner` (locks are taken in one order everywhere: no deadlock); the want
  /// lapses unless asked again within the idle time.
  bool try_take(const std::string& owner, std::vector<std::string> locks,
                millis now);
  /// `owner` waits for `r` until it gets it or drop(): first come, first
  /// served among the node's waiters of this kind.
  void wait(const std::string& owner, const std::string& r);
  /// `owner` leaves what it holds and stops waiting. What it held goes back
  /// to the cluster even if another owner here waits for it (that one asks
  /// again): other nodes waiting get their turn first.
  void drop(const std::string& owner);
  bool owns(const std::string& owner, const std::string& r) const;
  /// Owners (holding or waiting) whose name starts with `prefix`.
  std::vector<std::string> owners_with_prefix(const std::string& prefix) const;

  /// What the node must do now, and what changed hands.
  struct actions {
    std::vector<std::string> request;   // ask the cluster
    std::vector<std::string> release;   // give back (or stop asking)
    std::vector<std::pair<std::string, std::string>> assigned; // owner, r
  };
  /// Drops task wants older than `idle_ms`, hands free held resources to
  /// waiters, and says what to request and release.
  actions settle(millis now, millis idle_ms);
  /// The cluster granted `r` to this node.
  void granted(const std::string& r);
  /// The node lost `r` without releasing it (voting's lease): the owner
  /// that had it ("" if none), whose work must stop.
  std::string lost(const std::string& r);

  struct row {
    std::string resource;
    bool held = false;
    std::string owner;
    std::vector<std::string> waiters;
  };
  std::vector<row> rows() const;

private:
  struct waiter {
    std::string owner;
    millis asked = 0;
    bool task = false; // lapses unless asked again
  };
  void want(const std::string& r, const std::string& owner, millis now,
            bool task, bool& notify);

  mutable std::mutex mu_;
  std::function<void()> on_want_;
  std::set<std::string> held_;      // granted to this node
  std::set<std::string> requested_; // asked of the cluster, not released
  std::map<std::string, std::string> owner_;
  std::set<std::string> recycle_; // left by an owner: give back first
  std::map<std::string, std::vector<waiter>> waiting_;
};

} // namespace dice
