#include "http_api/workflow_json.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "known_tasks/task_policy.hpp"
#include "known_tasks/task_state.hpp"

namespace dice {

namespace {

bool good_step_name(const std::string& name) {
  return !name.empty() && name.size() <= 64
         && std::all_of(name.begin(), name.end(), [](unsigned char c) {
              return std::isalnum(c) || c == '-' || c == '_' || c == '.';
            });
}

} // namespace

std::string fresh_workflow_id() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  char id[32];
  std::snprintf(id, sizeof id, "wf-%016llx%08llx",
                static_cast<unsigned long long>(gen()),
                static_cast<unsigned long long>(gen() & 0xffffffffu));
  return id;
}

std::string keyed_workflow_id(const std::string& key) {
  // Another prefix than a task key's, so the two never name one id.
  return "wf-" + keyed_task_id("workflow\n" + key).substr(4);
}

std::optional<workflow_request>
parse_workflow(const std::string& body, const std::vector<std::string>& known_kinds,
               const std::string& fresh_id, std::string& error, millis now) {
  auto fail = [&](std::string why) -> std::optional<workflow_request> {
    error = std::move(why);
    return std::nullopt;
  };
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail("body must be a JSON object: {\"steps\": [...]}");
  for (auto& [field, value] : j.items())
    if (field != "steps" && field != "key")
      return fail("unknown field '" + field + "' (known: steps, key)");
  workflow_request w;
  if (j.contains("key")) {
    if (!j["key"].is_string() || j["key"].get<std::string>().empty()
        || j["key"].get<std::string>().size() > max_task_key_bytes)
      return fail("'key' must be a string of 1 to "
                  + std::to_string(max_task_key_bytes) + " bytes");
    w.id = keyed_workflow_id(j["key"].get<std::string>());
    w.keyed = true;
  } else {
    w.id = fresh_id;
  }
  if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty())
    return fail("'steps' must be a non-empty array of steps");
  if (j["steps"].size() > max_workflow_steps)
    return fail("'steps' lists " + std::to_string(j["steps"].size())
                + " steps; at most " + std::to_string(max_workflow_steps));
  submit_limits limits;
  // Each earlier step's task ids, by name.
  std::map<std::string, std::vector<std::string>> ids_of;
  w.steps = nlohmann::json::object();
  for (auto step : j["steps"]) {
    if (!step.is_object() || !step.contains("name") || !step["name"].is_string())
      return fail("every step must be an object with a 'name'");
    auto name = step["name"].get<std::string>();
    auto in = [&](const std::string& why) { return fail("step '" + name + "': " + why); };
    if (!good_step_name(name))
      return fail("step name '" + name.substr(0, 64)
                  + "' must be 1 to 64 letters, digits, '-', '_' or '.'");
    if (ids_of.count(name) > 0)
      return in("two steps have this name");
    for (const char* own : {"count", "key"})
      if (step.contains(own))
        return in(std::string("'") + own
                  + "' is the workflow's to set (use 'payloads' to fan out)");
    std::vector<std::string> payloads;
    if (step.contains("payloads")) {
      auto& p = step["payloads"];
      if (step.contains("payload") || !p.is_array() || p.empty())
        return in("'payloads' must be a non-empty array, instead of 'payload'");
      for (auto& x : p) {
        if (!x.is_string() && !x.is_number_integer())
          return in("each of 'payloads' must be a string or an integer");
        payloads.push_back(x.is_string() ? x.get<std::string>() : x.dump());
      }
      step["payload"] = payloads.front();
      step["count"] = payloads.size();
      step.erase("payloads");
    }
    std::vector<std::string> after;
    if (step.contains("after")) {
      auto& a = step["after"];
      if (!a.is_array())
        return in("'after' must be an array of earlier step names");
      for (auto& x : a) {
        if (!x.is_string() || ids_of.count(x.get<std::string>()) == 0)
          return in("'after' names " + x.dump()
                    + ", which is not an earlier step");
        const auto& parent_ids = ids_of[x.get<std::string>()];
        after.insert(after.end(), parent_ids.begin(), parent_ids.end());
      }
      step["after"] = after;
    }
    step["key"] = w.id + "/" + name;
    step.erase("name");
    auto sub = parse_submit(step.dump(), known_kinds, limits, error, now);
    if (!sub)
      return in(error);
    if (payloads.empty())
      payloads.push_back(sub->payload);
    auto specs = specs_of(*sub, now);
    auto& ids = ids_of[name];
    for (std::size_t i = 0; i < specs.size(); ++i) {
      auto& spec = specs[i];
      spec.set_payload(payloads[i]);
      if (auto why = submit_payload_problem(spec.kind(), spec.payload()); !why.empty())
        return in(why);
      if (auto why = spec_size_problem(spec); !why.empty())
        return in(why);
      spec.set_workflow(w.id);
      spec.set_step(name);
      ids.push_back(spec.id());
      w.specs.push_back(std::move(spec));
    }
    w.steps[name] = ids;
    if (w.specs.size() > limits.max_count)
      return fail("the workflow has more than " + std::to_string(limits.max_count)
                  + " tasks");
  }
  return w;
}

nlohmann::json workflow_json(const std::string& id, const std::vector<task_row>& rows) {
  // Steps by name: their tasks, and the steps they run after.
  struct step {
    std::vector<const task_row*> tasks;
    std::set<std::string> after;
    std::size_t depth = 0;
  };
  std::map<std::string, step> steps;
  std::map<std::string, std::string> step_of; // task id -> step
  for (const auto& r : rows) {
    steps[r.spec.step()].tasks.push_back(&r);
    step_of[r.spec.id()] = r.spec.step();
  }
  for (auto& [name, s] : steps)
    for (const auto* r : s.tasks)
      for (const auto& parent : r->spec.after())
        if (auto p = step_of.find(parent); p != step_of.end())
          s.after.insert(p->second);
  // The graph's order: by depth (the longest chain of steps before), then
  // name. Steps only name earlier ones, so depths settle in one pass each.
  for (std::size_t round = 0; round < steps.size(); ++round)
    for (auto& [name, s] : steps)
      for (const auto& a : s.after)
        s.depth = std::max(s.depth, steps[a].depth + 1);
  std::vector<std::pair<std::size_t, std::string>> order;
  for (const auto& [name, s] : steps)
    order.emplace_back(s.depth, name);
  std::sort(order.begin(), order.end());
  std::map<std::string, std::size_t> counts;
  bool ended = true, all_done = true;
  auto out_steps = nlohmann::json::array();
  for (const auto& [depth, name] : order) {
    const auto& s = steps[name];
    std::map<std::string, std::size_t> by_state;
    auto tasks = nlohmann::json::array();
    for (const auto* r : s.tasks) {
      auto state = state_name(r->state);
      ++by_state[state];
      ++counts[state];
      ended &= is_terminal(r->state.phase());
      all_done &= r->state.phase() == wire::DONE;
      nlohmann::json t{{"id", r->spec.id()}, {"state", state}};
      if (r->state.has_claim())
        t["node"] = r->state.claim().node_id();
      if (r->state.phase() == wire::DONE)
        t["result"] = r->state.result();
      else if (!r->state.reason().empty())
        t["reason"] = r->state.reason();
      tasks.push_back(std::move(t));
    }
    // One state for the step: its tasks' when they agree, else "running".
    auto summary = by_state.size() == 1 ? by_state.begin()->first : "running";
    out_steps.push_back({{"name", name},
                         {"after", std::vector<std::string>(s.after.begin(), s.after.end())},
                         {"state", summary},
                         {"tasks", std::move(tasks)}});
  }
  return {{"id", id},
          {"state", !ended ? "running" : all_done ? "done" : "failed"},
          {"counts", counts},
          {"steps", std::move(out_steps)}};
}

// GET /workflows: {"workflows": [{"id", "state", "steps", "tasks",
// "counts", "enqueued_at_ms"}], "total"}, newest first, at most `limit`;
// `state` as GET /workflows/ID gives it, `total` the workflows held.
nlohmann::json workflow_list_json(const std::vector<task_row>& rows, std::size_t limit) {
  struct summary {
    std::set<std::string> steps;
    std::map<std::string, std::size_t> counts;
    std::size_t tasks = 0;
    std::int64_t enqueued = 0;
    bool ended = true, all_done = true;
  };
  std::map<std::string, summary> by_id;
  for (const auto& r : rows) {
    if (!r.has_spec || r.spec.workflow().empty())
      continue;
    auto& w = by_id[r.spec.workflow()];
    w.steps.insert(r.spec.step());
    ++w.counts[state_name(r.state)];
    if (w.tasks++ == 0 || r.spec.enqueue_time_ms() < w.enqueued)
      w.enqueued = r.spec.enqueue_time_ms();
    w.ended &= is_terminal(r.state.phase());
    w.all_done &= r.state.phase() == wire::DONE;
  }
  std::vector<std::pair<const std::string*, const summary*>> order;
  for (const auto& [id, w] : by_id)
    order.emplace_back(&id, &w);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->enqueued != b.second->enqueued
             ? a.second->enqueued > b.second->enqueued
             : *a.first < *b.first;
  });
  auto list = nlohmann::json::array();
  for (std::size_t i = 0; i < order.size() && i < limit; ++i) {
    const auto& w = *order[i].second;
    list.push_back({{"id", *order[i].first},
                    {"state", !w.ended ? "running" : w.all_done ? "done" : "failed"},
                    {"steps", w.steps.size()},
                    {"tasks", w.tasks},
                    {"counts", w.counts},
                    {"enqueued_at_ms", w.enqueued}});
  }
  return {{"workflows", std::move(list)}, {"total", by_id.size()}};
}

} // namespace dice
