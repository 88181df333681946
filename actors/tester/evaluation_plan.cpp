#include "tester/evaluation_plan.hpp"

#include <algorithm>

using nlohmann::json;

namespace dice {

std::string new_evaluation_id(const std::string& node_id, millis now, std::uint64_t n) {
  return "ev-" + node_id + "-" + std::to_string(now) + "-" + std::to_string(n);
}

std::vector<wire::TaskSpec>
evaluation_specs(const evaluation_record& e, const std::vector<std::string>& modules,
                 const std::vector<std::string>& sources,
                 const std::map<std::string, std::int64_t>& durations_ms) {
  std::vector<wire::TaskSpec> specs(modules.size() + 1);
  auto& record = specs[0];
  record.set_id(e.id);
  record.set_kind("evaluation");
  record.set_payload(encode_evaluation(e));
  // Modules never heard of go first: they may be the long ones.
  std::int64_t longest = 0;
  for (auto& [m, ms] : durations_ms)
    longest = std::max(longest, ms);
  for (std::size_t i = 0; i < modules.size(); ++i) {
    auto& s = specs[i + 1];
    s.set_id(module_task_id(e.id, i));
    s.set_kind("test");
    module_task t{e.id, e.blob, modules[i], e.runner, e.timeout_s, e.reruns, sources};
    s.set_payload(encode_module_task(t));
    // Tenths of a second; the queue runs higher priorities first.
    auto tenths = [](std::int64_t ms) { return std::min<std::int64_t>(ms / 100, 1'000'000); };
    auto it = durations_ms.find(modules[i]);
    s.set_priority(static_cast<std::int32_t>(
      it == durations_ms.end() ? tenths(longest) + 1 : tenths(it->second)));
    s.add_blobs(e.blob);
  }
  return specs;
}

std::map<std::string, std::int64_t>
remembered_durations(const std::string& name,
                     const std::vector<std::pair<evaluation_record,
                                                 std::vector<module_row>>>& earlier) {
  const std::pair<evaluation_record, std::vector<module_row>>* latest = nullptr;
  for (auto& ev : earlier) {
    if (ev.first.name != name || name.empty())
      continue;
    bool done = ev.second.size() == ev.first.modules
                && std::all_of(ev.second.begin(), ev.second.end(), [](const module_row& r) {
                     return r.known && r.state.phase() == wire::DONE;
                   });
    if (done && (!latest || ev.first.submitted_ms > latest->first.submitted_ms))
      latest = &ev;
  }
  std::map<std::string, std::int64_t> out;
  if (!latest)
    return out;
  for (auto& row : latest->second) {
    std::string err;
    auto t = decode_module_task(row.spec.payload(), err);
    if (t)
      out[t->module] = decode_module_result(row.state.result()).duration_ms;
  }
  return out;
}

} // namespace dice
