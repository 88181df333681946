#pragma once
// The schedule part of the HTTP API: POST /schedules bodies and the
// schedules GET /schedules lists. Plain functions, tested without a server.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

/// Parses {"name", "every_ms" | "cron" (five fields, UTC), "jitter_ms"?,
/// "catch_up"? ("last", the default; "none"; "all"), "exclusive"? (each
/// tick holds the lock schedule_lock(name) while it runs), "task": a POST /tasks
/// body without count, key, after or times of its own} into the
/// schedule's record (created at wall time `now`). nullopt and `error` on
/// bad input.
std::optional<wire::TaskSpec>
parse_schedule(const std::string& body, const std::vector<std::string>& known_kinds,
               millis now, std::string& error);

/// One schedule as GET /schedules shows it, with its next tick after `now`.
nlohmann::json schedule_json(const wire::TaskSpec& record, millis now);

} // namespace dice
