#pragma once
// A simulation run as it unfolded: samples taken every few ms of virtual
// time, for dice-sim --timeline and the plot drawn from it
// (bench/queue_sim/timeline.py). Counts are cumulative, so a plot shows
// who did the work and when claims were lost or tasks ran twice.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/time.hpp"

namespace dice {

struct timeline_sample {
  millis at = 0;
  /// Tasks finished so far, each credited once, to the node whose
  /// execution of it finished first; per node, in the order of `nodes`.
  std::vector<std::uint64_t> done_by;
  /// Claims lost so far, crashed nodes' counts kept.
  std::uint64_t claims_lost = 0;
  /// Executions beyond one per task so far (sim_report::duplicates).
  std::uint64_t duplicates = 0;
  /// Nodes up at this instant.
  std::size_t up = 0;
};

struct sim_timeline {
  std::vector<std::string> nodes;
  std::vector<timeline_sample> samples;

  /// Header `t_ms,done,claims_lost,duplicates,up,` then one column per node
  /// (its id): the tasks it finished first, so the node columns of a row sum
  /// to its `done`.
  void write_csv(std::ostream& out) const;
};

} // namespace dice
