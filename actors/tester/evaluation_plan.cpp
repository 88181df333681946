#include "tester/evaluation_plan.hpp"

#include <algorithm>

using nlohmann::json;

namespace dice {

std::string new_evaluation_id(const std::string& node_id, millis now, std::uint64_t n) {
  return "ev-" + node_id + "-" + std::to_string(now) + "-" + std::to_string(n);
}

std::vector<std::size_t>
module_ranks(const std::vector<std::string>& modules,
             const std::map<std::string, std::int64_t>& durations_ms,
             const std::map<std::string, std::uint64_t>& priors) {
  struct key {
    bool seen;
    std::int64_t ms;
    std::uint64_t prior;
  };
  std::vector<key> keys;
  for (auto& m : modules) {
    auto d = durations_ms.find(m);
    auto p = priors.find(m);
    keys.push_back({d != durations_ms.end(), d == durations_ms.end() ? 0 : d->second,
                    p == priors.end() ? 0 : p->second});
  }
  std::vector<std::size_t> order(modules.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = keys[a];
    const auto& y = keys[b];
    if (x.seen != y.seen)
      return !x.seen;
    return x.seen ? x.ms > y.ms : x.prior > y.prior;
  });
  std::vector<std::size_t> rank(modules.size());
  for (std::size_t r = 0; r < order.size(); ++r)
    rank[order[r]] = r;
  return rank;
}

std::int32_t module_priority(std::size_t rank) {
  return -static_cast<std::int32_t>(
    std::min<std::size_t>(rank, static_cast<std::size_t>(defaults::tester_priority_band)));
}

std::vector<wire::TaskSpec>
evaluation_specs(const evaluation_record& e, const std::vector<std::string>& modules,
                 const std::vector<std::string>& sources,
                 const std::map<std::string, std::int64_t>& durations_ms,
                 const std::map<std::string, std::uint64_t>& priors) {
  std::vector<wire::TaskSpec> specs(modules.size() + 1);
  auto& record = specs[0];
  record.set_id(e.id);
  record.set_kind("evaluation");
  record.set_payload(encode_evaluation(e));
  auto rank = module_ranks(modules, durations_ms, priors);
  for (std::size_t i = 0; i < modules.size(); ++i) {
    auto& s = specs[i + 1];
    s.set_id(module_task_id(e.id, i));
    s.set_kind("test");
    module_task t{e.id, e.blob, modules[i], e.runner, e.timeout_s, e.reruns, sources};
    s.set_payload(encode_module_task(t));
    s.set_priority(module_priority(rank[i]));
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
