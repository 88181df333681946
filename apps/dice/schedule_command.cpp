#include "schedule_command.hpp"

#include <chrono>
#include <iostream>

#include "task_options.hpp"

namespace dice::cli {

namespace {

const char* usage =
  "usage: dice schedule add NAME (--every DURATION | --cron \"M H D MON W\") "
  "[--jitter DURATION] [--catch-up last|none|all] [--exclusive] [--] KIND PAYLOAD "
  "[task options] "
  "| list | remove NAME";

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

int add(client& node, const args& a, bool json) {
  // KIND PAYLOAD after the name, or after a `--`.
  std::vector<std::string> what(a.words.begin() + 3, a.words.end());
  what.insert(what.end(), a.command.begin(), a.command.end());
  if (what.size() != 2)
    return fail(usage, 2);
  nlohmann::json body{{"name", a.words[2]}};
  std::int64_t ms = 0;
  std::string why;
  auto has = [&](const char* o) { return a.opts.count(o) > 0; };
  if (has("--every") == has("--cron"))
    return fail("give --every DURATION or --cron \"M H D MON W\", one of them", 2);
  if (has("--every")) {
    if (!parse_duration_ms(a.opts.at("--every"), ms, why))
      return fail("--every: " + why, 2);
    body["every_ms"] = ms;
  } else {
    body["cron"] = a.opts.at("--cron");
  }
  if (has("--jitter")) {
    if (!parse_duration_ms(a.opts.at("--jitter"), ms, why))
      return fail("--jitter: " + why, 2);
    body["jitter_ms"] = ms;
  }
  if (has("--catch-up"))
    body["catch_up"] = a.opts.at("--catch-up");
  if (has("--exclusive"))
    body["exclusive"] = true;
  nlohmann::json task{{"kind", what[0]}, {"payload", what[1]}};
  if (!add_task_policy(a.opts, now_ms(), task, why))
    return fail(why, 2);
  body["task"] = task;
  auto r = node.post("/schedules", body);
  if (!r.ok())
    return fail(r.error, r.status == 400 ? 2 : 1);
  if (json)
    std::cout << r.body.dump() << "\n";
  else
    std::cout << "schedule " << a.words[2]
              << (r.body.value("existing", false) ? " exists already" : " added")
              << "\n";
  return 0;
}

} // namespace

int schedule_command(client& node, const args& a, bool json) {
  if (a.words.size() < 2)
    return fail(usage, 2);
  const auto& verb = a.words[1];
  if (verb == "add" && a.words.size() >= 3)
    return add(node, a, json);
  if (verb == "remove" && a.words.size() == 3) {
    auto r = node.del("/schedules/" + a.words[2]);
    if (!r.ok())
      return fail(r.error);
    std::cout << (json ? r.body.dump() : "schedule " + a.words[2] + " removed") << "\n";
    return 0;
  }
  if (verb == "list" && a.words.size() == 2) {
    auto r = node.get("/schedules");
    if (!r.ok())
      return fail(r.error);
    if (json) {
      std::cout << r.body.dump() << "\n";
      return 0;
    }
    for (const auto& s : r.body.at("schedules")) {
      std::cout << s.value("name", "") << "  "
                << (s.contains("every_ms")
                      ? "every " + std::to_string(s["every_ms"].get<long long>()) + " ms"
                      : "cron " + s.value("cron", ""))
                << (s.value("exclusive", false) ? "  exclusive" : "")
                << "  " << s["task"].value("kind", "") << " "
                << s["task"].value("payload", "");
      if (s.contains("next_tick_ms"))
        std::cout << "  next in "
                  << (s["next_tick_ms"].get<long long>() - now_ms()) / 1000 << " s";
      std::cout << "\n";
    }
    return 0;
  }
  return fail(usage, 2);
}

} // namespace dice::cli
