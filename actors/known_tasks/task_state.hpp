#pragma once
// The mutable state of a task as a join-semilattice.
//
// States are totally ordered and merge() keeps the greater one, so merging is
// commutative, associative and idempotent: replicas that received the same
// updates, in any order and any number of times, hold the same state.
//
// The order, from the top:
//   REMOVED > DONE > CANCELED > EXPIRED > FAILED (final) > every
//   non-terminal state;
//   among non-terminal states the higher attempt wins (a re-execution
//   supersedes the attempt it replaces); within one attempt RUNNING > READY;
//   between two RUNNING claims of one attempt the better claim by the
//   six-criterion ranking wins; one claim whose execution began (a start
//   mark) is above the same claim still waiting for a slot (claimed
//   ahead); between two re-queues of one attempt the
//   later not-before time wins; a phase unknown to this build (a newer
//   peer's) ranks below everything. Remaining ties fall to the other fields
//   (attempt, claim, finished time, result, reason, started and ready
//   times), so two states compare equal only if they are equal.
//
// Why this removes the paper's lottery inconsistency: in the paper each node
// sorts the claims it happened to receive within its own wait window and a
// claim arriving after the window goes through a different tie-break, so two
// replicas with different windows can crown different winners. Here the
// winner is a function of the set of claims alone: a late claim is merged
// like any other, every replica ends with the best claim seen, and the node
// whose claim lost learns so from lost_claim() and cancels its execution.
// No wait window has to be synchronized for replicas to agree.
#include <cstdint>
#include <string>

#include "dice.pb.h"

namespace dice {

/// Every phase, in wire order (for listing counts and names).
constexpr wire::TaskPhase all_phases[] = {
  wire::READY,    wire::RUNNING, wire::FAILED, wire::CANCELED,
  wire::DONE,     wire::REMOVED, wire::EXPIRED};

/// RUNNING without a start mark: a node claimed the task ahead of a free
/// slot and its execution has not begun (shown as "claimed").
inline bool claimed_ahead(const wire::TaskState& s) {
  return s.phase() == wire::RUNNING && s.started_time_ms() == 0;
}

/// FAILED, EXPIRED, CANCELED, DONE and REMOVED end a task; READY and
/// RUNNING do not.
bool is_terminal(wire::TaskPhase phase);

/// <0 if `a` is below `b`, >0 if above, 0 only if `a` and `b` are equal.
int compare_states(const wire::TaskState& a, const wire::TaskState& b);

/// True if `a` already includes `b`: merge(a, b) == a.
inline bool dominates(const wire::TaskState& a, const wire::TaskState& b) {
  return compare_states(a, b) >= 0;
}

/// The least upper bound of `a` and `b`.
wire::TaskState merge(const wire::TaskState& a, const wire::TaskState& b);

/// Merges `update` into `state`; true if `state` changed (worth acting on
/// and passing on).
bool merge_into(wire::TaskState& state, const wire::TaskState& update);

/// True if `my_node`, executing attempt `my_attempt`, must stop: `merged`
/// no longer says that this node runs (or ran) that attempt, because a
/// better claim, a later attempt or a terminal state superseded it.
bool lost_claim(const wire::TaskState& merged, const std::string& my_node,
                std::uint32_t my_attempt);

} // namespace dice
