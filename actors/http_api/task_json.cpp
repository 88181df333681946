#include "http_api/task_json.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include "mutex/lock_name.hpp"
#include "vocabulary/runner_capabilities.hpp"

namespace dice {

namespace {

// The integer `v` holds, if it is one within [lo, hi]. nlohmann keeps an
// integer above INT64_MAX as unsigned, and reading that as signed wraps it:
// a priority of 18446744073709551615 was taken as -1 (caught by the check
// in fuzz/submit_json_fuzz.cpp that accepted numbers are the ones written).
std::optional<long long> integer_in(const nlohmann::json& v, long long lo,
                                    long long hi) {
  long long i = 0;
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()))
      return std::nullopt;
    i = static_cast<long long>(u);
  } else if (v.is_number_integer()) {
    i = v.get<long long>();
  } else {
    return std::nullopt;
  }
  if (i < lo || i > hi)
    return std::nullopt;
  return i;
}

} // namespace

std::optional<submit_request>
parse_submit(const std::string& body, const std::vector<std::string>& known_kinds,
             const submit_limits& limits, std::string& error, millis now) {
  auto fail = [&](std::string why) -> std::optional<submit_request> {
    error = std::move(why);
    return std::nullopt;
  };
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded())
    return fail("body is not valid JSON");
  if (!j.is_object())
    return fail("body must be a JSON object");
  static const std::set<std::string> fields{
    "kind",       "payload",      "priority",      "count",
    "data_objects", "locks",      "time_limit_ms", "max_attempts",
    "retries",    "backoff_ms",   "delay_ms",      "not_before_ms",
    "expires_ms", "expires_in_ms", "keep_for_ms", "key", "after", "on_parent_failure"};
  for (auto& [key, value] : j.items())
    if (fields.count(key) == 0)
      return fail("unknown field '" + key + "'");
  submit_request r;
  if (!j.contains("kind") || !j["kind"].is_string())
    return fail("'kind' must be a string");
  r.kind = j["kind"].get<std::string>();
  if (r.kind.empty())
    return fail("'kind' must not be empty");
  if (r.kind == evaluation_kind)
    return fail("kind '" + r.kind + "' is dice test's own: run tests with "
                "dice test (POST /evaluation)");
  if (!known_kinds.empty()
      && std::find(known_kinds.begin(), known_kinds.end(), r.kind) == known_kinds.end()) {
    std::string names;
    for (auto& k : known_kinds)
      names += (names.empty() ? "" : ", ") + k;
    return fail("unknown kind '" + r.kind + "': no live member runs it (known: "
                + names + ")");
  }
  if (j.contains("payload")) {
    auto& p = j["payload"];
    if (p.is_string())
      r.payload = p.get<std::string>();
    else if (p.is_number_integer())
      r.payload = p.dump(); // the digits as written, whatever their size
    else
      return fail("'payload' must be a string or an integer");
  }
  if (r.payload.size() > limits.max_payload_bytes)
    return fail("payload of " + std::to_string(r.payload.size())
                + " bytes exceeds the limit of "
                + std::to_string(limits.max_payload_bytes));
  if (j.contains("priority")) {
    auto p = integer_in(j["priority"], -1'000'000, 1'000'000);
    if (!p)
      return fail("'priority' must be an integer from -1000000 to 1000000");
    r.priority = static_cast<std::int32_t>(*p);
  }
  if (j.contains("count")) {
    auto c = integer_in(j["count"], 1, limits.max_count);
    if (!c)
      return fail("'count' must be an integer from 1 to "
                  + std::to_string(limits.max_count));
    r.count = static_cast<std::uint32_t>(*c);
  }
  if (j.contains("data_objects")) {
    auto& d = j["data_objects"];
    if (!d.is_object())
      return fail("'data_objects' must be an object: {\"node id\": count}");
    if (d.size() > limits.max_data_objects)
      return fail("'data_objects' names " + std::to_string(d.size())
                  + " nodes; at most " + std::to_string(limits.max_data_objects));
    for (auto& [node, count] : d.items()) {
      auto c = integer_in(count, 0, 0xffffffffLL);
      if (node.empty() || node.size() > 256 || !c)
        return fail("'data_objects' maps a node id (1 to 256 bytes) to a count "
                    "from 0 to 4294967295");
      r.data_objects.emplace_back(node, static_cast<std::uint32_t>(*c));
    }
  }
  if (j.contains("locks")) {
    auto& l = j["locks"];
    if (!l.is_array() || !std::all_of(l.begin(), l.end(),
                                      [](const auto& x) { return x.is_string(); }))
      return fail("'locks' must be an array of lock names");
    for (const auto& x : l)
      r.locks.push_back(x.get<std::string>());
    if (auto p = lock_list_problem(r.locks); !p.empty())
      return fail("'locks': " + p);
  }
  auto& pol = r.policy;
  // Times and waits: integers of ms, range-checked by policy_problem.
  const std::pair<const char*, millis*> times[] = {
    {"time_limit_ms", &pol.time_limit_ms}, {"backoff_ms", &pol.backoff_ms},
    {"delay_ms", &pol.delay_ms},           {"not_before_ms", &pol.not_before_ms},
    {"expires_ms", &pol.expires_ms},       {"expires_in_ms", &pol.expires_in_ms}};
  for (const auto& [name, field] : times)
    if (j.contains(name)) {
      auto v = integer_in(j[name], 0, std::numeric_limits<long long>::max());
      if (!v)
        return fail(std::string("'") + name + "' must be a whole number of ms, 0 or more");
      *field = *v;
    }
  if (j.contains("keep_for_ms")) {
    auto v = integer_in(j["keep_for_ms"], 0, max_task_wait_ms);
    if (!v)
      return fail("'keep_for_ms' must be a whole number of ms from 0 to "
                  + std::to_string(max_task_wait_ms));
    pol.keep_for_ms = *v;
  }
  if (j.contains("max_attempts") && j.contains("retries"))
    return fail("give 'max_attempts' or 'retries', not both");
  if (j.contains("max_attempts")) {
    auto v = integer_in(j["max_attempts"], 1, max_task_attempts);
    if (!v)
      return fail("'max_attempts' must be an integer from 1 to "
                  + std::to_string(max_task_attempts));
    pol.max_attempts = static_cast<std::uint32_t>(*v);
  }
  if (j.contains("retries")) {
    auto v = integer_in(j["retries"], 0, max_task_attempts - 1);
    if (!v)
      return fail("'retries' must be an integer from 0 to "
                  + std::to_string(max_task_attempts - 1));
    pol.max_attempts = static_cast<std::uint32_t>(*v + 1);
  }
  if (j.contains("key")) {
    if (!j["key"].is_string() || j["key"].get<std::string>().empty())
      return fail("'key' must be a non-empty string");
    pol.key = j["key"].get<std::string>();
  }
  if (j.contains("after")) {
    auto& a = j["after"];
    if (!a.is_array() || !std::all_of(a.begin(), a.end(),
                                      [](const auto& x) { return x.is_string(); }))
      return fail("'after' must be an array of task ids");
    for (const auto& x : a)
      pol.after.push_back(x.get<std::string>());
  }
  if (j.contains("on_parent_failure")) {
    auto& f = j["on_parent_failure"];
    if (!f.is_string() || (f != "cancel" && f != "run"))
      return fail("'on_parent_failure' must be \"cancel\" (the default) or \"run\"");
    pol.run_after_failure = f == "run";
  }
  if (auto p = policy_problem(pol, now); !p.empty())
    return fail(p);
  return r;
}

std::vector<wire::TaskSpec> specs_of(const submit_request& sub, millis now) {
  std::vector<wire::TaskSpec> specs(sub.count);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    auto& spec = specs[i];
    apply_policy(sub.policy, now, i, specs.size(), spec);
    spec.set_kind(sub.kind);
    spec.set_payload(sub.payload);
    spec.set_priority(sub.priority);
    for (auto& [node, count] : sub.data_objects) {
      auto* d = spec.add_data_objects();
      d->set_node_id(node);
      d->set_count(count);
    }
    *spec.mutable_locks() = {sub.locks.begin(), sub.locks.end()};
  }
  return specs;
}

std::optional<std::vector<std::string>> parse_ids(const std::string& list,
                                                  std::string& error) {
  std::vector<std::string> ids;
  std::size_t from = 0;
  while (from <= list.size()) {
    auto to = std::min(list.find(',', from), list.size());
    if (to > from)
      ids.push_back(list.substr(from, to - from));
    from = to + 1;
  }
  if (ids.empty()) {
    error = "ids must name at least one task id (comma-separated)";
    return std::nullopt;
  }
  if (ids.size() > max_query_ids) {
    error = "ids names " + std::to_string(ids.size()) + " tasks; at most "
            + std::to_string(max_query_ids) + " per request";
    return std::nullopt;
  }
  return ids;
}

nlohmann::json task_json(const wire::TaskSpec& spec, const wire::TaskState& state,
                         bool details) {
  nlohmann::json j{{"id", spec.id()},
                   {"kind", spec.kind()},
                   {"state", state_name(state)},
                   {"node", state.has_claim() ? nlohmann::json(state.claim().node_id())
                                              : nlohmann::json(nullptr)},
                   {"attempts", state.attempt()}};
  // Wall-clock ms of the attempt that ended the task (ready: for a first
  // attempt its enqueue until a report says otherwise); null while unknown.
  auto ms = [](std::int64_t v) {
    return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  auto ready = state.ready_time_ms();
  if (ready == 0 && state.attempt() <= 1)
    ready = std::max(spec.enqueue_time_ms(), spec.not_before_ms());
  j["ready_at_ms"] = ms(ready);
  j["started_at_ms"] = ms(state.started_time_ms());
  j["finished_at_ms"] = ms(state.finished_time_ms());
  if (details) {
    j["priority"] = spec.priority();
    j["enqueuer"] = spec.enqueuer();
    j["payload"] = spec.payload();
    j["locks"] = std::vector<std::string>(spec.locks().begin(), spec.locks().end());
    if (state.phase() == wire::DONE)
      j["result"] = state.result();
    if (!state.reason().empty())
      j["reason"] = state.reason();
    // The task's own policy, as submitted (null: the node's default).
    j["time_limit_ms"] = ms(spec.time_limit_ms());
    j["max_attempts"] = spec.max_attempts() > 0 ? nlohmann::json(spec.max_attempts())
                                                : nlohmann::json(nullptr);
    j["backoff_ms"] = ms(spec.backoff_ms());
    j["not_before_ms"] = ms(spec.not_before_ms());
    j["expires_ms"] = ms(spec.expires_ms());
    j["key"] = spec.key().empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.key());
    j["keep_for_ms"] = spec.has_keep_for_ms() ? nlohmann::json(spec.keep_for_ms())
                                              : nlohmann::json(nullptr);
    if (spec.after_size() > 0) {
      j["after"] = std::vector<std::string>(spec.after().begin(), spec.after().end());
      j["on_parent_failure"] = spec.run_after_failure() ? "run" : "cancel";
      // Each parent's end so far; the parents not ended yet.
      auto parents = nlohmann::json::array();
      std::set<std::string> ended;
      for (const auto& in : spec.inputs()) {
        ended.insert(in.task_id());
        nlohmann::json p{{"id", in.task_id()}, {"state", phase_name(in.phase())}};
        if (in.phase() == wire::DONE)
          p["result"] = in.result();
        else
          p["reason"] = in.reason();
        parents.push_back(std::move(p));
      }
      j["parents"] = std::move(parents);
      auto waiting = nlohmann::json::array();
      for (const auto& a : spec.after())
        if (ended.count(a) == 0)
          waiting.push_back(a);
      j["waiting_for"] = std::move(waiting);
    }
    if (!spec.scheduled_by().empty()) {
      j["schedule"] = spec.scheduled_by();
      j["tick_ms"] = spec.tick_ms();
    }
    if (!spec.workflow().empty()) {
      j["workflow"] = spec.workflow();
      j["step"] = spec.step();
    }
    // A re-queued attempt waiting out its backoff.
    if (state.phase() == wire::READY && state.not_before_ms() > 0)
      j["retry_at_ms"] = state.not_before_ms();
  }
  return j;
}

} // namespace dice
