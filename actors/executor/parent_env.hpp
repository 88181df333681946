#pragma once
// What a `shell` task's program learns of its parents: the node's own
// environment plus
//   DICE_PARENT_IDS           the parents' ids, space-separated, in order
//   DICE_PARENT_RESULT        the first parent's result (text up to 64 KiB)
//   DICE_PARENT_RESULTS_FILE  a JSON array of every parent's end:
//                             {"id", "state", "result"} or {..., "reason"}
// The file is removed when the execution ends. A task without parents gets
// the node's environment unchanged.
#include <string>
#include <vector>

#include "executor/execution.hpp"

namespace dice {

class parent_env {
public:
  explicit parent_env(const std::vector<parent_end>& parents);
  ~parent_env();
  parent_env(const parent_env&) = delete;
  parent_env& operator=(const parent_env&) = delete;

  /// For posix_spawn: null-terminated "NAME=value" strings.
  char* const* envp() { return pointers_.data(); }
  /// Why the results file could not be written (empty if it was).
  const std::string& error() const { return error_; }

private:
  std::vector<std::string> vars_;
  std::vector<char*> pointers_;
  std::string file_;
  std::string error_;
};

} // namespace dice
