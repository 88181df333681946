#pragma once
// What the executor has done, as plain numbers (no CAF): /stats and
// /metrics read it.
#include <cstdint>

namespace dice {

struct executor_stats {
  std::uint64_t slots = 0;
  std::uint64_t busy = 0;
  std::uint64_t started = 0;
  std::uint64_t completed = 0; // succeeded
  std::uint64_t failed = 0;
  std::uint64_t canceled = 0;
};

} // namespace dice
