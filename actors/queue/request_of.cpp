#include "queue/request_of.hpp"

#include "known_tasks/state_names.hpp"

namespace dice {

execution_request execution_request_of(const std::string& task_id,
                                       std::uint32_t attempt,
                                       const wire::TaskSpec& spec) {
  execution_request r{task_id, attempt, spec.kind(), spec.payload(),
                      spec.time_limit_ms(), spec.expires_ms()};
  for (const auto& in : spec.inputs())
    r.parents.push_back({in.task_id(), phase_name(in.phase()),
                         in.phase() == wire::DONE ? in.result() : in.reason()});
  return r;
}

} // namespace dice
