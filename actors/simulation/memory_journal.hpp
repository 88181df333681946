#pragma once
// A simulated node's journal: the records replica_journal would write,
// kept in memory across the node's crashes, so a restarted node restores
// its replica as dice-node does (possibly one its peers have since
// forgotten parts of).
#include <string>
#include <unordered_set>
#include <vector>

#include "known_tasks/replica_record.hpp"
#include "known_tasks/replica_sink.hpp"

namespace dice {

class memory_journal : public replica_sink {
public:
  void record(const std::string& task_id, const known_task& task) override {
    bool with_spec = task.has_spec && spec_written_.insert(task_id).second;
    records_.push_back(replica_record(task_id, task, with_spec));
  }
  void forget(const std::string& task_id,
              const std::vector<wire::ForgottenRange>& ranges) override {
    spec_written_.erase(task_id);
    if (!ranges.empty())
      records_.push_back(forgotten_record(ranges));
  }
  const std::vector<wire::TakeMyTask>& records() const { return records_; }

private:
  std::vector<wire::TakeMyTask> records_;
  std::unordered_set<std::string> spec_written_;
};

} // namespace dice
