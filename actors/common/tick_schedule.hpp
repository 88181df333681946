#pragma once
// When an actor's machine (a queue subsystem, the election, the locks)
// ticks next. The actor sends itself a timer message per schedule; a timer cannot be taken back, so one made
// stale by an earlier deadline still arrives. Only the scheduled timer
// runs the machine and schedules the next: if every arriving timer did,
// each re-arm would add a tick that circulates forever (the coordinator,
// whose stable point is always due, gathered thousands of them, and their
// messages pinned heap pages long after a burst).
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "common/time.hpp"

namespace dice {

class tick_schedule {
public:
  /// `min_gap`: no tick sooner than this after the last one.
  explicit tick_schedule(millis min_gap = 10) : min_gap_(min_gap) {}

  struct timer {
    std::uint64_t seq; // what the timer message carries back
    millis delay;      // 0: send at once
  };

  /// The machine's next deadline: a timer to send, unless none is due or
  /// the one scheduled comes soon enough.
  std::optional<timer> arm(std::optional<millis> due, millis now) {
    if (!due)
      return std::nullopt;
    auto earliest = last_tick_ + min_gap_;
    auto at = std::max(*due, earliest);
    if (at_ && *at_ <= at)
      return std::nullopt;
    // A timer superseded earlier but still on its way by then serves: it
    // becomes the scheduled one (a tick early is harmless, the machine
    // checks its deadlines), so superseded timers are not piled up.
    for (const auto& [seq, when] : in_flight_)
      if (when >= earliest && when <= at) {
        at_ = when;
        seq_ = seq;
        return std::nullopt;
      }
    at_ = at;
    seq_ = ++sent_;
    in_flight_[seq_] = at;
    return timer{seq_, std::max<millis>(at - now, 0)};
  }

  /// A timer message came back: true if the machine ticks now (the one
  /// scheduled, or any while none is). By number, not by
  /// time, so a wall clock set back stalls nothing.
  bool fire(std::uint64_t seq, millis now) {
    in_flight_.erase(seq);
    if (at_ && seq != seq_)
      return false;
    at_.reset();
    last_tick_ = now;
    return true;
  }

  /// The sequence number of a tick sent outside any schedule (the first).
  static constexpr std::uint64_t unscheduled = 0;

  void set_min_gap(millis g) { min_gap_ = g; }
  /// Timers sent and not yet back.
  std::size_t in_flight() const { return in_flight_.size(); }

private:
  millis min_gap_;
  millis last_tick_ = 0;
  std::optional<millis> at_; // when the scheduled tick comes
  std::uint64_t seq_ = 0;     // the scheduled tick's timer
  std::uint64_t sent_ = 0;    // timers sent so far
  std::map<std::uint64_t, millis> in_flight_; // sent, not back: seq -> when
};

} // namespace dice
