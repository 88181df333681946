#include "http_api/worker_json.hpp"

#include <algorithm>

namespace dice {

namespace {

// The object of a body ({} if empty), or nullopt with `error` set; only
// the fields in `allowed` may appear.
std::optional<nlohmann::json> body_object(const std::string& body,
                                          std::initializer_list<const char*> allowed,
                                          std::string& error) {
  if (body.empty())
    return nlohmann::json::object();
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = "the body must be a JSON object";
    return std::nullopt;
  }
  for (const auto& [key, value] : j.items())
    if (std::find_if(allowed.begin(), allowed.end(),
                     [&](const char* a) { return key == a; }) == allowed.end()) {
      error = "unknown field '" + key + "'";
      return std::nullopt;
    }
  return j;
}

// A whole number field within [low, high] into `out`; `out` is left as it
// is if the field is absent. False, with `error` set, if it is bad.
bool count_field(const nlohmann::json& j, const char* key, std::uint64_t low,
                 std::uint64_t high, std::uint64_t& out, std::string& error) {
  if (!j.contains(key))
    return true;
  const auto& v = j[key];
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < low
      || v.get<std::uint64_t>() > high) {
    error = std::string("'") + key + "' must be a whole number from "
            + std::to_string(low) + " to " + std::to_string(high);
    return false;
  }
  out = v.get<std::uint64_t>();
  return true;
}

} // namespace

std::optional<worker_join_request> parse_worker_join(const std::string& body,
                                                     std::string& error) {
  auto j = body_object(body, {"kinds", "concurrency", "name"}, error);
  if (!j)
    return std::nullopt;
  worker_join_request r;
  if (!j->contains("kinds") || !(*j)["kinds"].is_array() || (*j)["kinds"].empty()) {
    error = "'kinds' must be a list of the kind names the worker serves";
    return std::nullopt;
  }
  for (const auto& k : (*j)["kinds"]) {
    if (!k.is_string()) {
      error = "'kinds' must hold strings";
      return std::nullopt;
    }
    r.kinds.push_back(k.get<std::string>());
  }
  if (!count_field(*j, "concurrency", 1, 1024, r.concurrency, error))
    return std::nullopt;
  if (j->contains("name")) {
    if (!(*j)["name"].is_string() || (*j)["name"].get<std::string>().size() > 256) {
      error = "'name' must be a string of at most 256 characters";
      return std::nullopt;
    }
    r.name = (*j)["name"].get<std::string>();
  }
  return r;
}

std::optional<worker_take_request> parse_worker_take(const std::string& body,
                                                     std::string& error) {
  auto j = body_object(body, {"max", "wait_ms"}, error);
  if (!j)
    return std::nullopt;
  worker_take_request r;
  std::uint64_t wait = r.wait_ms;
  if (!count_field(*j, "max", 0, 1024, r.max, error)
      || !count_field(*j, "wait_ms", 0, max_worker_wait_ms, wait, error))
    return std::nullopt;
  r.wait_ms = static_cast<millis>(wait);
  return r;
}

std::optional<job_end> parse_worker_done(const std::string& body, std::string& error) {
  auto j = body_object(body, {"job", "ok", "result", "reason", "final"}, error);
  if (!j)
    return std::nullopt;
  job_end e;
  if (!j->contains("job") || !(*j)["job"].is_number_unsigned()) {
    error = "'job' must be the number take gave";
    return std::nullopt;
  }
  e.job = (*j)["job"].get<std::uint64_t>();
  if (!j->contains("ok") || !(*j)["ok"].is_boolean()) {
    error = "'ok' must be true (with 'result') or false (with 'reason')";
    return std::nullopt;
  }
  e.ok = (*j)["ok"].get<bool>();
  const char* text = e.ok ? "result" : "reason";
  if (j->contains(text)) {
    if (!(*j)[text].is_string()) {
      error = std::string("'") + text + "' must be a string";
      return std::nullopt;
    }
    e.result_or_reason = (*j)[text].get<std::string>();
  }
  if (j->contains("final")) {
    if (!(*j)["final"].is_boolean()) {
      error = "'final' must be true or false";
      return std::nullopt;
    }
    e.final = !e.ok && (*j)["final"].get<bool>();
  }
  if (!e.ok && e.result_or_reason.empty())
    e.result_or_reason = "the worker gave no reason";
  return e;
}

nlohmann::json worker_take_json(const worker_take& t) {
  auto jobs = nlohmann::json::array();
  for (const auto& j : t.jobs)
    jobs.push_back({{"job", j.job},           {"task_id", j.task_id},
                    {"attempt", j.attempt},   {"kind", j.kind},
                    {"payload", j.payload},   {"time_limit_ms", j.time_limit_ms}});
  return {{"jobs", std::move(jobs)}, {"cancel", t.canceled}};
}

nlohmann::json workers_json(const worker_report& r) {
  auto list = nlohmann::json::array();
  for (const auto& w : r.workers)
    list.push_back({{"id", w.id},
                    {"name", w.name},
                    {"kinds", w.kinds},
                    {"concurrency", w.concurrency},
                    {"holding", w.holding},
                    {"finished", w.finished},
                    {"joined_ms", w.joined_ms}});
  const auto& c = r.counters;
  return {{"workers", std::move(list)},
          {"kinds", r.kinds},
          {"queued", r.queued},
          {"lease_ms", r.lease_ms},
          {"joined", c.joined},
          {"left", c.left},
          {"lapsed", c.lapsed},
          {"jobs_handed", c.jobs_handed},
          {"jobs_finished", c.jobs_finished},
          {"jobs_lost", c.jobs_lost},
          {"late_answers", c.late_answers}};
}

} // namespace dice
