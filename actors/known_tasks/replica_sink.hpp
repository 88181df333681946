#pragma once
// Where known_tasks hands every change of its replica to be kept beyond
// the process (the journal); none in simulations and tests.
#include <string>
#include <vector>

#include "known_tasks/known_tasks.hpp"

namespace dice {

class replica_sink {
public:
  virtual ~replica_sink() = default;
  /// The task as merged after a change.
  virtual void record(const std::string& task_id, const known_task& task) = 0;
  /// The task left the replica; `ranges` are the numbers newly forgotten
  /// (its own, or what a peer's snapshot said it forgot).
  virtual void forget(const std::string& task_id,
                      const std::vector<wire::ForgottenRange>& ranges) = 0;
};

} // namespace dice
