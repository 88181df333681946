#pragma once
// How a node resolves tasks it hears of but does not know (the unknown
// task resolver's settings, part of the queue's config).
#include <cstdint>

#include "common/defaults.hpp"
#include "common/time.hpp"

namespace dice {

/// Whether this node asks about tasks it does not know.
enum class resolve_strategy {
  /// Never ask: leave it to anti-entropy (saves broadcasts on big clusters).
  never_want,
  /// Ask as soon as a message names an unknown task.
  always_want,
};

struct resolver_config {
  resolve_strategy strategy = resolve_strategy::always_want;
  /// Back-off range of an unknown-task answer (algorithm 2); the first node to
  /// answer silences the others.
  millis backoff_min_ms = 5;
  millis backoff_max_ms = 250;
  /// A message may overtake the ENQUEUE it follows: wait this long before
  /// asking about an unknown task.
  millis ask_delay_ms = 60;
  /// How long an asker waits for the answers to a broadcast question (they
  /// come after a back-off) before asking again.
  millis resolve_window_ms = 600;
  /// The same for a question to a witness alone, which answers at once:
  /// a round trip and the witness's queue.
  millis witness_window_ms = 200;
  /// DO_YOU_KNOW_THIS_TASK questions per unknown task; anti-entropy does
  /// the rest.
  std::uint32_t resolve_tries = 4;
  /// The first this many go to a witness alone (the nodes whose messages
  /// named the task, in turn); the rest to everyone. A broadcast question
  /// and its answers cost every node a datagram: at 20% loss one direct
  /// question or its answer in three is lost, so with one direct try a
  /// third of the askers broadcast and a node's traffic per task grew with
  /// N. Fewer broadcasts tell fewer of the replicas that missed a task's
  /// claim or end, which then claim it: four direct tries (dice-node's
  /// --unknown-direct-tries) sent a third fewer datagrams per node per
  /// task at 128 simulated nodes and 20% loss, but 12% more duplicate
  /// executions at 64 and a slower makespan at 128 (bench/README.md).
  std::uint32_t witness_tries = 2;
  /// One more direct try (before the same broadcasts) per doubling of the
  /// live cluster beyond 64 nodes, as a broadcast's cost grows with the
  /// cluster and a direct one's does not (dice-node's
  /// --unknown-direct-tries auto); false: witness_tries at every size.
  bool scale_witness_tries = true;
};

} // namespace dice
