#pragma once
// A process that did not run for a while (SIGSTOP, a VM pause, a swap
// storm) finds its peers' messages of that time unread in its socket:
// their silence was its own. A machine that judges silence ticks on a
// schedule; a tick later than the schedule allows reveals such a gap, and
// the judge should not count it against anyone.
#include <cstdint>
#include <optional>

#include "common/time.hpp"

namespace dice {

class pause_detector {
public:
  /// `tolerance`: how late a tick may be without counting as a pause
  /// (its period, plus scheduling slack).
  explicit pause_detector(millis tolerance) : tolerance_(tolerance) {}

  /// At each tick: the time since the previous one beyond the tolerance,
  /// 0 if on time (or the first tick since rest()).
  millis gap(millis now) {
    millis late = last_ ? now - *last_ - tolerance_ : 0;
    last_ = now;
    if (late <= 0)
      return 0;
    ++pauses_;
    return late;
  }
  /// No tick is expected until the next gap() call (nothing to judge).
  void rest() { last_.reset(); }

  std::uint64_t pauses() const { return pauses_; }

private:
  millis tolerance_;
  std::optional<millis> last_;
  std::uint64_t pauses_ = 0;
};

} // namespace dice
