#include "tester/evaluation_plan.hpp"
#include "vocabulary/runner_capabilities.hpp"

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
    std::min<std::size_t>(rank, static_cast<std::size_t>(tester_priority_band)));
}

std::vector<std::vector<std::string>>
module_groups(const std::vector<std::string>& modules,
              const std::map<std::string, std::int64_t>& durations_ms,
              const std::map<std::string, std::uint64_t>& priors, std::size_t runners) {
  auto known = [&](const auto& weights) {
    return std::all_of(modules.begin(), modules.end(),
                       [&](const std::string& m) { return weights.count(m) > 0; });
  };
  bool by_duration = known(durations_ms);
  bool by_prior = !by_duration && known(priors);
  std::vector<std::uint64_t> weight;
  std::uint64_t total = 0;
  for (const auto& m : modules) {
    std::uint64_t w = 1;
    if (by_duration)
      w = static_cast<std::uint64_t>(std::max<std::int64_t>(1, durations_ms.at(m)));
    else if (by_prior)
      w = std::max<std::uint64_t>(1, priors.at(m));
    weight.push_back(w);
    total += w;
  }
  auto target = total / (tester_tasks_per_runner * std::max<std::size_t>(1, runners));
  // Stretches of the project's order (plain pytest's), each closed before
  // it would pass the target, so a heavy module is alone. A stretch runs
  // as plain pytest runs those files, one after another: suites whose
  // tests leave state behind for later files (mpmath's precision, say)
  // meet only what they meet under plain pytest, less what came before.
  std::vector<std::vector<std::string>> groups;
  std::uint64_t filled = 0;
  for (std::size_t i = 0; i < modules.size(); ++i) {
    if (groups.empty() || filled + weight[i] > target) {
      groups.emplace_back();
      filled = 0;
    }
    groups.back().push_back(modules[i]);
    filled += weight[i];
  }
  return groups;
}

std::vector<wire::TaskSpec>
evaluation_specs(const evaluation_record& e,
                 const std::vector<std::vector<std::string>>& groups,
                 const std::vector<std::string>& sources,
                 const std::map<std::string, std::int64_t>& durations_ms,
                 const std::map<std::string, std::uint64_t>& priors) {
  std::vector<wire::TaskSpec> specs(groups.size() + 1);
  auto& record = specs[0];
  record.set_id(e.id);
  record.set_kind(evaluation_kind);
  record.set_payload(encode_evaluation(e));
  // A group ranks by its modules' sum.
  std::vector<std::string> names;
  std::map<std::string, std::int64_t> group_ms;
  std::map<std::string, std::uint64_t> group_prior;
  for (const auto& g : groups) {
    names.push_back(g.front());
    bool all_known = true;
    std::int64_t ms = 0;
    std::uint64_t prior = 0;
    for (const auto& m : g) {
      auto d = durations_ms.find(m);
      all_known = all_known && d != durations_ms.end();
      ms += d == durations_ms.end() ? 0 : d->second;
      auto p = priors.find(m);
      prior += p == priors.end() ? 0 : p->second;
    }
    if (all_known)
      group_ms[g.front()] = ms;
    if (prior > 0)
      group_prior[g.front()] = prior;
  }
  auto rank = module_ranks(names, group_ms, group_prior);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto& s = specs[i + 1];
    s.set_id(module_task_id(e.id, i));
    s.set_kind("test");
    module_task t{e.id, e.blob, groups[i].front(), e.runner, e.timeout_s, e.reruns,
                  sources};
    t.with.assign(groups[i].begin() + 1, groups[i].end());
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
    bool done = ev.second.size() == ev.first.tasks
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
    if (!t)
      continue;
    auto r = decode_module_result(row.state.result());
    if (r.shares.empty())
      out[t->module] = r.duration_ms;
    for (const auto& [module, share] : r.shares)
      out[module] = share.ms;
  }
  return out;
}

} // namespace dice
