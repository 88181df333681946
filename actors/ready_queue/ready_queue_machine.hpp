#pragma once
// The ready_queue subsystem: the tasks waiting to run, and which of them
// this node claims. Ranking says how many slots are free; at the first
// tick after tasks or the cluster changed (a tick is due at once then, so
// a burst of ENQUEUEs already in the mailbox is matched as a whole, not
// task by task), the queue offers the free slots the tasks the common
// matching gives this node (claim_matching.hpp), so idle nodes that agree
// on who is free take disjoint tasks with no wait.
// A free slot the matching leaves without a
// task may still claim, late, in case the node matched to a task cannot
// take it: among `idle` nodes each waits one claim_stagger_ms plus its
// rendezvous rank times claim_stagger_ms, so the first claim is usually
// heard before anyone else claims.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_counters.hpp"
#include "vocabulary/queue_events.hpp"
#include "ready_queue/claim_matching.hpp"
#include "ready_queue/ready_queue.hpp"

namespace dice {

/// A task with parents not all ended here (known_tasks fills its inputs
/// then): ready, but no node claims it.
inline bool waits_for_parents(const wire::TaskSpec& spec) {
  return spec.inputs_size() < spec.after_size();
}

class ready_queue_machine {
public:
  ready_queue_machine(std::string id, queue_config cfg);

  void on(const ev::task_changed& e, millis now, ev::events& out);
  void on(const ev::live_nodes& e, millis now, ev::events& out);
  void on(const ev::free_slots& e, millis now, ev::events& out);
  void on(const ev::replica_restored& e, millis now, ev::events& out);
  /// Tasks of a kind a worker now serves join this node's walk; those of
  /// a kind no longer served leave it.
  void on(const ev::runner_changed& e, millis now, ev::events& out);
  /// Offers the free slots what they may claim now.
  void tick(millis now, ev::events& out);
  /// With a slot free: now if something changed, else when a free slot
  /// left without a match may claim next or a delay ends; and, slot or
  /// not, when a task's expiry is due to be told.
  std::optional<millis> next_due() const;

  const ready_queue& order() const { return ready_; }
  const queue_counters& counters() const { return counters_; }

private:
  struct ready_task {
    std::shared_ptr<const wire::TaskSpec> spec;
    std::uint32_t attempt = 0;
    millis since = 0; // when the attempt became ready here
    // Claimed no earlier (the spec's delay, the attempt's backoff).
    millis not_before = 0;
  };
  void make_claimable(const std::string& task_id, const ready_task& t);
  // The common order's key of a first-in, first-out queue.
  static std::uint64_t fifo_key(const wire::TaskSpec& spec);
  // Takes the task out of waiting_ and expiring_.
  void forget_times(const std::string& task_id);
  // Releases delayed tasks whose time came; ends those that expired.
  void pass_time(millis now, ev::events& out);
  // The ready tasks the common matching gives this node's free seats.
  std::vector<std::string> matched(const std::set<std::string>& skip) const;
  // The first class's first attempts whose enqueuer takes them first: as
  // many of each enqueuer's as it has free slots (the matching gives it
  // no more).
  task_owners owners(const std::vector<std::vector<std::string>>& classes) const;
  // A node's free seats as this one sees them: slots that would run at
  // once, and all (prefetch seats too).
  std::pair<std::size_t, std::size_t> free_seats_of(const std::string& node) const;
  // The ready task a seat left without a match may claim now, if any;
  // else `later` becomes the earliest time one may. `slot`: a free slot,
  // not a prefetch seat (which claims after every idle slot could).
  std::optional<std::string> next_claim(millis now, millis free_since,
                                        bool slot,
                                        const std::set<std::string>& skip,
                                        std::optional<millis>& later) const;
  // Adds to `skip` the first ready tasks whose locks are not this node's
  // (asking for them); true if there was any.
  bool locks_blocked(std::set<std::string>& skip) const;
  // Live nodes, this one included, not known to be executing.
  std::size_t idle_nodes() const;

  std::string id_;
  queue_config cfg_;
  ready_queue ready_;
  // The same tasks in the order common to all nodes, for the matching.
  ready_queue common_{""};
  std::unordered_map<std::string, ready_task> tasks_;
  // Those of them that name cluster-wide locks: without any, no tick scans
  // for tasks waiting for a lock.
  std::set<std::string> with_locks_;
  // Ready tasks not claimable yet, by not-before time; ready tasks with an
  // expiry, by expiry. Both hold (time, task id).
  std::set<std::pair<millis, std::string>> waiting_;
  std::set<std::pair<millis, std::string>> expiring_;
  queue_counters counters_;
  std::size_t live_ = 1;
  // Live peers and their seats (0 slots: not said, taken as 1).
  std::map<std::string, ev::seats> peer_seats_;
  // This node and its live peers in the order they take turns in the
  // common matching (claim_matching.hpp), kept as peers come and go.
  std::vector<std::string> turn_order_;
  // Who runs each running task, and how many each node runs (others only).
  std::map<std::string, std::string> runner_;
  std::map<std::string, std::size_t> per_node_;
  // Ranking's free seats not offered a task yet (free_run_ of them slots
  // that would run at once), since when, and the tasks it claimed or runs
  // (or was offered since it said so): never offered.
  std::size_t free_ = 0;
  std::size_t free_run_ = 0;
  millis free_since_ = 0;
  std::set<std::string> claimed_;
  // When a staggered claim's turn comes next.
  std::optional<millis> later_;
  // Tasks, slots or nodes changed since the last offer.
  bool changed_ = true;
  // No offer before this: restarted on a journal, the node catches up first.
  millis hold_until_ = 0;
};

/// The machine its actor runs (queue/), built the same in unit tests.
ready_queue_machine make_ready_queue_machine(const machine_config& c);

} // namespace dice
