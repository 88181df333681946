#pragma once
// `dice submit`'s task policy options (--time-limit, --retries, --backoff,
// --delay, --at, --expires, --keep, --key, --after, --on-parent-failure),
// turned into the fields of
// POST /tasks.
// Plain functions of the text and the time, tested without a node.
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace dice::cli {

/// A duration: a number and a unit, "500ms", "30s", "10m", "2h", "1d" (a
/// bare number is seconds). False, with `error` set, if it is not one.
bool parse_duration_ms(const std::string& text, std::int64_t& ms,
                       std::string& error);

/// A point in time, as wall ms since the epoch: a duration from `now_ms`
/// ("10m", "+10m"), a date and time ("2026-11-26T18:00", seconds optional,
/// "Z" for UTC, else local time), or a time of day ("18:00": its next
/// occurrence, local time). False, with `error` set, if it is none.
bool parse_time_ms(const std::string& text, std::int64_t now_ms,
                   std::int64_t& at_ms, std::string& error);

/// Adds to `body` the policy fields the options in `opts` ask for; false,
/// with `error` naming the option, on a bad value.
bool add_task_policy(const std::map<std::string, std::string>& opts,
                     std::int64_t now_ms, nlohmann::json& body,
                     std::string& error);

/// The options add_task_policy reads (each takes a value).
extern const char* const task_policy_options[10];

} // namespace dice::cli
