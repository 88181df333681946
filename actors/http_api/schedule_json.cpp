#include "http_api/schedule_json.hpp"

#include "http_api/task_json.hpp"
#include "known_tasks/schedules.hpp"
#include "mutex/lock_name.hpp"

namespace dice {

namespace {

const char* const catch_ups[] = {"last", "none", "all"};

} // namespace

std::optional<wire::TaskSpec>
parse_schedule(const std::string& body, const std::vector<std::string>& known_kinds,
               millis now, std::string& error) {
  auto fail = [&](std::string why) -> std::optional<wire::TaskSpec> {
    error = std::move(why);
    return std::nullopt;
  };
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail("body must be a JSON object: {\"name\", \"every_ms\" or \"cron\", \"task\"}");
  for (auto& [field, value] : j.items())
    if (field != "name" && field != "every_ms" && field != "cron"
        && field != "jitter_ms" && field != "catch_up" && field != "exclusive"
        && field != "task")
      return fail("unknown field '" + field
                  + "' (known: name, every_ms, cron, jitter_ms, catch_up, exclusive, task)");
  wire::ScheduleSpec s;
  if (!j.contains("name") || !j["name"].is_string())
    return fail("'name' must be a string");
  s.set_name(j["name"].get<std::string>());
  for (const char* ms : {"every_ms", "jitter_ms"})
    if (j.contains(ms)) {
      if (!j[ms].is_number_integer())
        return fail(std::string("'") + ms + "' must be a whole number of ms");
      if (std::string(ms) == "every_ms")
        s.set_every_ms(j[ms].get<long long>());
      else
        s.set_jitter_ms(j[ms].get<long long>());
    }
  if (j.contains("cron")) {
    if (!j["cron"].is_string())
      return fail("'cron' must be a string of five fields");
    s.set_cron(j["cron"].get<std::string>());
  }
  if (j.contains("catch_up")) {
    auto& c = j["catch_up"];
    bool found = false;
    for (std::uint32_t i = 0; i < 3 && c.is_string(); ++i)
      if (c == catch_ups[i]) {
        s.set_catch_up(i);
        found = true;
      }
    if (!found)
      return fail("'catch_up' must be \"last\" (the default), \"none\" or \"all\"");
  }
  if (!j.contains("task") || !j["task"].is_object())
    return fail("'task' must be an object: what each tick runs (as POST /tasks takes)");
  for (const char* own : {"count", "key", "after", "on_parent_failure", "delay_ms",
                          "not_before_ms", "expires_ms", "expires_in_ms"})
    if (j["task"].contains(own))
      return fail(std::string("'task': '") + own + "' does not apply to a schedule's ticks");
  auto sub = parse_submit(j["task"].dump(), known_kinds, {}, error, now);
  if (!sub)
    return fail("'task': " + error);
  if (auto why = submit_payload_problem(sub->kind, sub->payload); !why.empty())
    return fail("'task': " + why);
  *s.mutable_task() = specs_of(*sub, now).front();
  s.set_created_ms(now);
  if (auto why = schedule_problem(s); !why.empty())
    return fail(why);
  if (j.contains("exclusive")) {
    if (!j["exclusive"].is_boolean())
      return fail("'exclusive' must be true or false");
    if (j["exclusive"].get<bool>()) {
      // The ticks share one cluster-wide lock: none runs while another does.
      auto lock = schedule_lock(s.name());
      if (auto why = lock_name_problem(lock); !why.empty())
        return fail("an exclusive schedule's lock '" + lock + "': " + why
                    + " (a shorter name fits)");
      s.mutable_task()->add_locks(lock);
      if (auto why = lock_list_problem({s.task().locks().begin(), s.task().locks().end()});
          !why.empty())
        return fail("'task': " + why + " (an exclusive schedule adds one)");
    }
  }
  wire::TaskSpec record;
  record.set_id(schedule_record_id(s.name()));
  record.set_kind(schedule_kind);
  *record.mutable_schedule() = std::move(s);
  return record;
}

nlohmann::json schedule_json(const wire::TaskSpec& record, millis now) {
  const auto& s = record.schedule();
  nlohmann::json j{{"name", s.name()},
                   {"id", record.id()},
                   {"jitter_ms", s.jitter_ms()},
                   {"catch_up", catch_ups[s.catch_up() < 3 ? s.catch_up() : 0]},
                   {"created_ms", s.created_ms()},
                   {"exclusive", is_exclusive(s)},
                   {"enqueuer", record.enqueuer()},
                   {"task", task_json(s.task(), wire::TaskState{}, true)}};
  j["task"].erase("id");
  j["task"].erase("state");
  if (s.every_ms() > 0)
    j["every_ms"] = s.every_ms();
  else
    j["cron"] = s.cron();
  if (auto t = next_tick(s, now))
    j["next_tick_ms"] = *t + tick_jitter(s, *t);
  return j;
}

} // namespace dice
