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
  /// How long an asker waits for an answer before asking again.
  millis resolve_window_ms = 600;
  /// DO_YOU_KNOW_THIS_TASK questions per unknown task (the first to the
  /// witness alone); anti-entropy does the rest.
  std::uint32_t resolve_tries = 3;
};

} // namespace dice
