#pragma once
// The ranking subsystem: this node's part in the dequeue lottery. It tells
// ready_queue how many seats (slots plus prefetch) are free; a free seat
// claims the task ready_queue offers (DEQUEUE with this node's Claim). A
// task the common matching gave this node waits the short matched claim
// window (no other node is expected to claim it; should one, the merge
// order picks one winner before either starts), or none if this node has
// just submitted it (first_claim_time), any other the longer
// claim window (a window of 0 starts at once, and a better claim heard
// later stops the loser). A claim executes only if the merged state names
// it (on a busy node whose own claim comes back merged only after the
// window, it waits for that, rather than give the task up and re-queue it
// when the claim turns out to have won). The merge order
// (ranking.hpp) picks the same winner on every replica, however late a
// claim is, so a losing claim frees its slot (a losing execution is
// running_tasks' to stop: it owns the executions; ranking only keeps
// their seats taken until running_tasks says one ended).
// A winner also tells a losing claimer at once, as do about claim_helpers
// other nodes, in case it missed the better claim.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "ranking/adaptive_prefetch.hpp"
#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_counters.hpp"
#include "vocabulary/queue_events.hpp"

namespace dice {

class ranking_machine {
public:
  ranking_machine(std::string id, queue_config cfg);

  void on(const ev::task_changed& e, millis now, ev::events& out);
  void on(const ev::claim_heard& e, millis now, ev::events& out);
  void on(const ev::task_offer& e, millis now, ev::events& out);
  void on(const ev::execution_over& e, millis now, ev::events& out);
  void on(const ev::drain& e, millis now, ev::events& out);
  void on(const ev::live_nodes& e, millis now, ev::events& out);
  /// Ends claim windows (and, the first time, says how many slots are
  /// free).
  void tick(millis now, ev::events& out);
  /// The next claim window to end.
  std::optional<millis> next_due() const;

  /// Claims waiting for their window to end.
  std::size_t pending_claims() const { return pending_.size(); }
  const queue_counters& counters() const { return counters_; }

private:
  struct claim_ticket {
    std::uint32_t attempt = 0;
    wire::Claim claim;
    millis window_end = 0;
    millis ready_ms = 0;
    std::shared_ptr<const wire::TaskSpec> spec;
    wire::TaskState state; // the merged state, as last heard
    // The window ended before this node's own claim came back merged (a
    // busy node): wait for it, until window_end, now the give-up time.
    bool window_over = false;
    // Waited the matched window (learn_window judges it).
    bool matched_window = false;
  };
  // Where the merged state `s` leaves a claim: named, beaten for good
  // (a better claim, a later attempt or an end), or not yet merged here.
  enum class claim_standing { named, beaten, unmerged };
  claim_standing standing(const wire::TaskState& s,
                          const claim_ticket& t) const;
  bool names(const wire::TaskState& s, std::uint32_t attempt,
             const wire::Claim& claim) const;
  // A task this node enqueued, offered within submit_claim_ms of its
  // ENQUEUE, or a child whose last parent ended here just before
  // (heir.hpp): no peer can claim it before it hears that ENQUEUE or end,
  // so a claim dated then (returned) is first and needs no window.
  // Never a schedule's tick, which several nodes may enqueue.
  std::optional<millis> first_claim_time(const ev::task_offer& e,
                                         millis now) const;
  // True if this node is one of the few that tell a losing claimer about
  // the better claim.
  bool helps(const std::string& task_id, const std::string& claimer) const;
  // The merged state of a task we may hold a claim for.
  void learn(const std::string& task_id, const wire::TaskState& s,
             millis now);
  void note_birth(millis now) {
    if (born_ < 0)
      born_ = now;
  }
  void end_windows(millis now, ev::events& out);
  void execute(const std::string& task_id, const claim_ticket& t,
               ev::events& out);
  // Tells ready_queue how many slots are free, if that is not what it
  // believes.
  void announce(millis now, ev::events& out);
  std::size_t busy() const { return pending_.size() + handed_.size(); }
  // Claims held at once: the slots and the prefetched claims beyond them.
  // None while drained.
  std::size_t capacity() const {
    return draining_ ? 0 : cfg_.slots + prefetch();
  }
  std::size_t prefetch() const {
    return auto_prefetch_ ? auto_prefetch_->current() : cfg_.prefetch;
  }
  // Set under --prefetch auto.
  std::optional<adaptive_prefetch> auto_prefetch_;
  bool draining_ = false;

  std::string id_;
  queue_config cfg_;
  wire::NodeInfo info_;
  /// Reads queue_config::battery_source when due (tick).
  void refresh_battery(millis now);
  millis next_battery_read_ = 0;
  std::map<std::string, claim_ticket> pending_;
  // The tasks whose execution this node handed to running_tasks: their
  // seats stay taken until running_tasks reports the execution over.
  struct handed_claim {
    std::uint32_t attempt = 0;
    wire::Claim claim;
    // Waited the matched window, and no better claim was heard since: the
    // window was long enough (so far).
    bool matched_clean = false;
  };
  std::map<std::string, handed_claim> handed_;
  // The matched claim window as this node has learnt it, from
  // matched_claim_window_ms on: a better claim heard only after its own
  // claim's window ended (and its execution began) lengthens it to what
  // would have sufficed; clean executions shorten it, down to 1 ms, but
  // only once hold_after_late_claim of them came since such a claim.
  millis window_;
  std::uint32_t clean_runs_ = 0;
  std::uint32_t since_late_claim_ = UINT32_MAX; // none yet: shrink at once
  void learn_window(const std::string& task_id, const wire::TaskState& s,
                    millis now);
  // When this incarnation first ran (-1: not yet): claims naming this node
  // from before then are a previous incarnation's.
  millis born_ = -1;
  std::size_t live_ = 1;
  // When a slot last became free (-1: all busy): nodes freed together by
  // equally long tasks must not all claim at once either.
  millis free_since_ = 0;
  // The free slots ready_queue believes it has to fill: the count last
  // announced less the offers made since (none: not announced yet).
  std::optional<std::size_t> announced_;
  queue_counters counters_;
};

/// The machine its actor runs (queue/), built the same in unit tests.
ranking_machine make_ranking_machine(const machine_config& c);

} // namespace dice
