#pragma once
// How many tasks a node claims beyond its slots under --prefetch auto. A
// claim ahead saves a claim's round trip between two executions; what it
// can cost is the claimed task's wait behind this node's running ones,
// which a free slot elsewhere might have spared it. With executions of a
// few ms the round trip is most of each task's time and claims ahead pay
// (no-op tasks on 4 single-slot nodes: about 10% more tasks/s and 8% less
// CPU with 4 than with 1; bench/README.md); with executions of 100 ms a
// task claimed ahead would wait that long. So the claims ahead hold about
// `budget_ms` of this node's work at most: from `least` up to `most`, by a
// running mean of how long its executions take.
#include <cstddef>

#include "common/time.hpp"

namespace dice {

struct adaptive_prefetch_config {
  std::size_t least = 1;
  std::size_t most = 4; // Celery's default prefetch multiplier
  millis budget_ms = 20;
};

class adaptive_prefetch {
public:
  explicit adaptive_prefetch(adaptive_prefetch_config cfg = {});

  /// One of this node's executions took `ms` (from its slot's start to its
  /// end reaching the queue). True if current() changed.
  bool ran(millis ms);

  /// The claims to hold beyond the slots now.
  std::size_t current() const { return current_; }

private:
  /// The most claims ahead whose expected work fits in `budget` ms.
  std::size_t fitting(double budget) const;

  adaptive_prefetch_config cfg_;
  double mean_ms_ = -1; // none measured yet
  std::size_t current_;
};

} // namespace dice
