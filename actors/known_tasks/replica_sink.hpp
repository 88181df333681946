#pragma once
// Where known_tasks hands every change of its replica to be kept beyond
// the process (the journal); none in simulations and tests.
#include <string>

#include "known_tasks/known_tasks.hpp"

namespace dice {

class replica_sink {
public:
  virtual ~replica_sink() = default;
  /// The task as merged after a change.
  virtual void record(const std::string& task_id, const known_task& task) = 0;
};

} // namespace dice
