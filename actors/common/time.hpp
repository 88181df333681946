#pragma once
// Time is always passed in, never read inside protocol logic, so that the
// logic runs the same under a real clock and under simulation.
#include <cstdint>

namespace dice {

/// Milliseconds; wall-clock ms since the epoch or simulated ms.
using millis = std::int64_t;

/// Wall-clock ms since the epoch (only the actor layer calls this).
millis wall_clock_ms();

} // namespace dice
