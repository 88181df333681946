#include "known_tasks/replica_record.hpp"

namespace dice {

wire::TakeMyTask replica_record(const std::string& task_id,
                                const known_task& task, bool with_spec) {
  wire::TakeMyTask t;
  if (with_spec) {
    *t.mutable_spec() = task.spec;
  } else {
    t.mutable_spec()->set_id(task_id);
    t.set_spec_unknown(true);
  }
  *t.mutable_state() = task.state;
  return t;
}

wire::TakeMyTask forgotten_record(const std::vector<wire::ForgottenRange>& ranges) {
  wire::TakeMyTask t;
  for (const auto& r : ranges)
    *t.add_forgotten() = r;
  return t;
}

} // namespace dice
