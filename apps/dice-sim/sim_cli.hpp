#pragma once
// dice-sim's command line, parsed into sim_options.
#include <string>

#include "simulation/sim_options.hpp"

namespace dice {

struct sim_cli {
  sim_options sim;
  bool json = false;
  bool dump = false; // print every replica when the run did not converge
  bool help = false; // print `usage` and exit 0
  std::string timeline; // CSV file for sim_report::timeline ("": none)
  std::string usage;
};

/// Throws std::runtime_error with a one-line reason on any bad input.
sim_cli parse_sim_cli(int argc, const char* const* argv);

} // namespace dice
