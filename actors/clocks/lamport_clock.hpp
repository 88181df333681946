#pragma once
// Lamport's logical clock (seed 001): a counter that ticks before every
// event and jumps past every timestamp it receives, so that a cause always
// carries a smaller timestamp than its effect. Ties between nodes are broken
// by node id where a total order is needed (Ricart-Agrawala, voting).
#include <algorithm>
#include <cstdint>

namespace dice {

class lamport_clock {
public:
  /// An event here (a send): the timestamp it carries.
  std::uint64_t tick() { return ++time_; }
  /// A message stamped `t` arrived: the clock moves past it.
  void observe(std::uint64_t t) { time_ = std::max(time_, t); }
  std::uint64_t now() const { return time_; }

private:
  std::uint64_t time_ = 0;
};

} // namespace dice
