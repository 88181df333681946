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
  millis backoff_min_ms = defaults::answer_backoff_min_ms;
  millis backoff_max_ms = defaults::answer_backoff_max_ms;
  millis ask_delay_ms = defaults::ask_delay_ms;
  millis resolve_window_ms = defaults::resolve_window_ms;
  std::uint32_t resolve_tries = defaults::resolve_tries;
};

} // namespace dice
