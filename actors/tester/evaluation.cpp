#include "tester/evaluation.hpp"

#include "known_tasks/task_state.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "known_tasks/state_names.hpp"

using nlohmann::json;

namespace dice {

std::string encode_evaluation(const evaluation_record& e) {
  return json{{"id", e.id},           {"name", e.name},
              {"blob", e.blob},       {"blob_bytes", e.blob_bytes},
              {"runner", e.runner},   {"split", e.split},
              {"timeout_s", e.timeout_s}, {"reruns", e.reruns},
              {"modules", e.modules}, {"tasks", e.tasks}, {"origin", e.origin},
              {"submitted_ms", e.submitted_ms}}
    .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<evaluation_record> decode_evaluation(const std::string& payload) {
  auto j = json::parse(payload, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return std::nullopt;
  try {
    evaluation_record e;
    e.id = j.at("id").get<std::string>();
    e.name = j.value("name", "");
    e.blob = j.at("blob").get<std::string>();
    e.blob_bytes = j.value("blob_bytes", 0ull);
    e.runner = j.value("runner", "pytest");
    e.split = j.value("split", "file");
    e.timeout_s = j.value("timeout_s", 0u);
    e.reruns = j.value("reruns", 0u);
    e.modules = j.at("modules").get<std::uint32_t>();
    e.tasks = j.value("tasks", e.modules);
    e.origin = j.value("origin", "");
    e.submitted_ms = j.value("submitted_ms", std::int64_t{0});
    return e;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string module_task_id(const std::string& eval_id, std::size_t index) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), ".m%05zu", index);
  return eval_id + buf;
}

namespace {

bool ended(const module_row& r) {
  auto p = r.state.phase();
  return r.known && is_terminal(p);
}

json counts_json(const outcome_counts& c) {
  return {{"tests", c.tests()},     {"passed", c.passed}, {"failed", c.failed},
          {"skipped", c.skipped},   {"xfailed", c.xfailed},
          {"errors", c.errors},     {"flaky", c.flaky}};
}

struct tally {
  outcome_counts totals;
  std::size_t done = 0;
  std::int64_t finished_ms = 0; // the last module task's end (wall clock)
  std::map<std::string, std::pair<std::size_t, outcome_counts>> per_node;
  json modules = json::array();
};

// What an ended module task reports: its result, or the error of a task
// that failed or was canceled.
module_result task_result(const module_row& row) {
  if (row.state.phase() == wire::DONE)
    return decode_module_result(row.state.result());
  module_result r;
  r.error = "module task " + phase_name(row.state.phase())
            + (row.state.reason().empty() ? "" : ": " + row.state.reason());
  r.counts.errors = 1;
  if (row.state.has_claim())
    r.node = row.state.claim().node_id();
  return r;
}

tally count(const std::vector<module_row>& rows, bool with_modules) {
  tally t;
  std::size_t index = 0;
  for (const auto& row : rows) {
    json base;
    if (with_modules)
      base = {{"state", row.known ? state_name(row.state) : std::string("unknown")}};
    std::string err;
    auto task = row.known ? decode_module_task(row.spec.payload(), err) : std::nullopt;
    auto names = task ? task->modules() : std::vector<std::string>{""};
    if (row.known && with_modules) {
      base["id"] = row.spec.id();
      base["attempts"] = row.state.attempt();
      if (row.state.has_claim() && row.state.phase() != wire::READY)
        base["node"] = row.state.claim().node_id();
    }
    std::vector<module_result> parts;
    if (ended(row)) {
      parts = split_group_result(task_result(row), names);
      t.finished_ms = std::max<std::int64_t>(t.finished_ms,
                                             row.state.finished_time_ms());
    }
    for (std::size_t k = 0; k < names.size(); ++k, ++index) {
      json m = base;
      if (with_modules) {
        m["index"] = index;
        if (task)
          m["module"] = names[k];
      }
      if (!parts.empty()) {
        const auto& r = parts[k];
        ++t.done;
        t.totals.add(r.counts);
        auto& n = t.per_node[r.node.empty() ? "?" : r.node];
        ++n.first;
        n.second.add(r.counts);
        if (with_modules) {
          m["counts"] = counts_json(r.counts);
          m["duration_ms"] = r.duration_ms;
          if (!r.error.empty())
            m["error"] = r.error;
          if (!r.output.empty())
            m["output"] = r.output;
          auto tests = json::array();
          for (auto& tc : r.tests)
            tests.push_back(test_case_json(tc));
          m["tests"] = std::move(tests);
        }
      }
      if (with_modules)
        t.modules.push_back(std::move(m));
    }
  }
  return t;
}

json header(const evaluation_record& e, const tally& t, std::size_t rows) {
  return {{"id", e.id},
          {"name", e.name},
          {"blob", e.blob},
          {"runner", e.runner},
          {"split", e.split},
          {"origin", e.origin},
          {"submitted_ms", e.submitted_ms},
          {"state", t.done == e.modules && rows == e.tasks ? "done" : "running"},
          {"modules_total", e.modules},
          {"modules_done", t.done},
          {"finished_ms", t.finished_ms},
          {"totals", counts_json(t.totals)}};
}

} // namespace

json evaluation_report(const evaluation_record& e, const std::vector<module_row>& rows) {
  auto t = count(rows, true);
  auto j = header(e, t, rows.size());
  j["timeout_s"] = e.timeout_s;
  j["reruns"] = e.reruns;
  j["modules"] = std::move(t.modules);
  json nodes = json::object();
  for (auto& [node, n] : t.per_node) {
    auto c = counts_json(n.second);
    c["modules"] = n.first;
    nodes[node] = std::move(c);
  }
  j["nodes"] = std::move(nodes);
  return j;
}

json evaluation_summary(const evaluation_record& e, const std::vector<module_row>& rows) {
  auto t = count(rows, false);
  return header(e, t, rows.size());
}

} // namespace dice
