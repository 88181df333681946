#include "tester/evaluation_plan.hpp"

#include <algorithm>
#include <set>

using nlohmann::json;

namespace dice {

namespace {

/// A whole number from a JSON number or a string of digits.
bool whole(const json& v, std::uint64_t max, std::uint64_t& out) {
  if (v.is_number_unsigned()) {
    out = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    if (v.get<std::int64_t>() < 0)
      return false;
    out = static_cast<std::uint64_t>(v.get<std::int64_t>());
  } else if (v.is_string()) {
    auto s = v.get<std::string>();
    if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out = std::stoull(s);
  } else {
    return false;
  }
  return out <= max;
}

} // namespace

std::optional<evaluation_request> parse_evaluation_request(const json& j,
                                                           const tester_config& cfg,
                                                           std::string& error) {
  if (!j.is_object()) {
    error = "the evaluation's options must be a JSON object";
    return std::nullopt;
  }
  static const std::set<std::string> known{"url", "name", "runner", "split",
                                           "timeout", "reruns", "modules"};
  evaluation_request r;
  r.timeout_s = static_cast<std::uint32_t>(defaults::tester_default_timeout_ms / 1000);
  for (auto& [key, v] : j.items()) {
    if (!known.count(key)) {
      error = "unknown field '" + key + "' (url, name, runner, split, timeout, "
              "reruns, modules)";
      return std::nullopt;
    }
    std::uint64_t n = 0;
    if (key == "timeout") {
      auto max_s = static_cast<std::uint64_t>(cfg.max_timeout_ms / 1000);
      if (!whole(v, max_s, n) || n == 0) {
        error = "timeout must be seconds from 1 to " + std::to_string(max_s);
        return std::nullopt;
      }
      r.timeout_s = static_cast<std::uint32_t>(n);
    } else if (key == "reruns") {
      if (!whole(v, 10, n)) {
        error = "reruns must be from 0 to 10";
        return std::nullopt;
      }
      r.reruns = static_cast<std::uint32_t>(n);
    } else if (key == "modules") {
      auto list = v;
      if (v.is_string()) // a query parameter: a JSON array in a string
        list = json::parse(v.get<std::string>(), nullptr, false);
      if (!list.is_array() || list.empty() || list.size() > defaults::tester_max_modules) {
        error = "modules must be a non-empty array of at most "
                + std::to_string(defaults::tester_max_modules) + " strings";
        return std::nullopt;
      }
      for (auto& m : list) {
        if (!m.is_string() || m.get<std::string>().empty()
            || m.get<std::string>().size() > 1024) {
          error = "every module must be a string of 1 to 1024 bytes";
          return std::nullopt;
        }
        r.modules.push_back(m.get<std::string>());
      }
    } else if (!v.is_string()) {
      error = key + " must be a string";
      return std::nullopt;
    } else {
      auto s = v.get<std::string>();
      if (s.size() > 1024) {
        error = key + " is longer than 1024 bytes";
        return std::nullopt;
      }
      (key == "url" ? r.url : key == "name" ? r.name : key == "runner" ? r.runner : r.split) = s;
    }
  }
  if (r.runner != "pytest" && r.runner != "ctest" && r.runner != "cmd") {
    error = "runner must be pytest, ctest or cmd";
    return std::nullopt;
  }
  if (r.split != "file" && r.split != "test") {
    error = "split must be file or test";
    return std::nullopt;
  }
  if (r.runner == "ctest" && r.split != "test") {
    error = "runner ctest runs a task per test: split must be test";
    return std::nullopt;
  }
  if (r.runner == "cmd" && r.modules.empty()) {
    error = "runner cmd needs modules: the commands to run, one task each";
    return std::nullopt;
  }
  if (!r.modules.empty())
    r.split = "list";
  return r;
}

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
