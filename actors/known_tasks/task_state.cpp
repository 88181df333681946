#include "known_tasks/task_state.hpp"

#include "vocabulary/ranking.hpp"

namespace dice {

namespace {

template <class T>
int three_way(const T& x, const T& y) {
  return x < y ? -1 : (y < x ? 1 : 0);
}

// Position of a phase within one attempt.
int phase_rank(int phase) {
  switch (phase) {
    case wire::READY:
      return 1;
    case wire::RUNNING:
      return 2;
    case wire::FAILED:
      return 3;
    case wire::EXPIRED:
      return 4;
    case wire::CANCELED:
      return 5;
    case wire::DONE:
      return 6;
    case wire::REMOVED:
      return 7;
    default:
      return 0;
  }
}

// The first key of the order. Terminal states outrank every non-terminal
// state of any attempt. A phase this build does not know (a newer peer's)
// ranks below all, so it never overrides a state we understand.
int phase_class(int phase) {
  auto rank = phase_rank(phase);
  if (rank == 0)
    return 0;
  return is_terminal(static_cast<wire::TaskPhase>(phase)) ? rank : 1;
}

} // namespace

bool is_terminal(wire::TaskPhase phase) {
  return phase == wire::FAILED || phase == wire::EXPIRED
         || phase == wire::CANCELED || phase == wire::DONE
         || phase == wire::REMOVED;
}

int compare_states(const wire::TaskState& a, const wire::TaskState& b) {
  if (int c = three_way(phase_class(a.phase()), phase_class(b.phase())))
    return c;
  if (int c = three_way(a.attempt(), b.attempt()))
    return c;
  if (int c = three_way(phase_rank(a.phase()), phase_rank(b.phase())))
    return c;
  // The better claim is the greater state.
  if (int c = compare_claims(b.claim(), a.claim()))
    return c;
  // One claim whose execution began (its start mark) and the same claim
  // still waiting for a slot: the mark, once merged, stays.
  if (int c = three_way(a.started_time_ms() != 0, b.started_time_ms() != 0))
    return c;
  // Two re-queues of one attempt (a failure's backoff, a silent executor's
  // none): the later not-before is kept, so no replica lets the attempt
  // start before either said.
  if (int c = three_way(a.not_before_ms(), b.not_before_ms()))
    return c;
  // Deterministic tie-breaks only (e.g. two DONE reports of one attempt).
  if (int c = three_way(b.finished_time_ms(), a.finished_time_ms()))
    return c; // the earlier finish is kept
  if (int c = three_way(a.result(), b.result()))
    return c;
  if (int c = three_way(a.reason(), b.reason()))
    return c;
  // Two reports of one execution that differ only in its timings: the
  // earlier times are kept, as for the finish.
  if (int c = three_way(b.started_time_ms(), a.started_time_ms()))
    return c;
  if (int c = three_way(b.ready_time_ms(), a.ready_time_ms()))
    return c;
  if (int c = three_way(a.has_claim(), b.has_claim()))
    return c;
  return three_way(a.phase(), b.phase()); // unknown phases among themselves
}

wire::TaskState merge(const wire::TaskState& a, const wire::TaskState& b) {
  return compare_states(a, b) >= 0 ? a : b;
}

bool merge_into(wire::TaskState& state, const wire::TaskState& update) {
  if (compare_states(update, state) <= 0)
    return false;
  state = update;
  return true;
}

bool lost_claim(const wire::TaskState& merged, const std::string& my_node,
                std::uint32_t my_attempt) {
  bool still_mine = merged.attempt() == my_attempt
                    && merged.claim().node_id() == my_node
                    && (merged.phase() == wire::RUNNING
                        || merged.phase() == wire::DONE);
  return !still_mine;
}

} // namespace dice
