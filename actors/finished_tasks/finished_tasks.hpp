#pragma once
// The paper's map of finished tasks: how each task ended (DONE with its
// result, FAILED, CANCELED or REMOVED), by whom and when, for users to read
// and for unknown-task answers (ALREADY_FINISHED_TASK).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

struct finish_info {
  wire::TaskPhase phase = wire::DONE;
  std::uint32_t attempt = 0;
  std::string node;
  std::string result;
  std::string reason;
  millis time_ms = 0;
};

class finished_tasks {
public:
  /// Records the terminal `state` of a task; true if new or changed (a
  /// later report can supersede, e.g. REMOVED after DONE).
  bool record(const std::string& task_id, const wire::TaskState& state);

  const finish_info* find(const std::string& task_id) const;
  bool contains(const std::string& task_id) const {
    return find(task_id) != nullptr;
  }
  std::size_t size() const { return finished_.size(); }
  /// Tasks that ended in `phase`.
  std::size_t count(wire::TaskPhase phase) const;
  const std::map<std::string, finish_info>& all() const { return finished_; }

private:
  std::map<std::string, finish_info> finished_;
};

} // namespace dice
