#pragma once
// What an embedding program asks of an evaluation (dice test). Plain values.
#include <cstdint>
#include <string>
#include <vector>

namespace dice::embed {

/// An evaluation (dice test): a project's tests split into tasks.
struct evaluation_options {
  std::string runner = "pytest";     // pytest, ctest or cmd
  std::string split;                 // file or test; empty: the runner's own
  std::vector<std::string> modules;  // given: one task each (cmd: commands)
  std::uint32_t timeout_s = 600;     // a module's time limit
  std::uint32_t reruns = 0;          // a failed test passing on a rerun: flaky
  std::string name;                  // durations are remembered per name;
                                     // empty: the path's last part
};

} // namespace dice::embed
