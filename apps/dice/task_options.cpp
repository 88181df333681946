#include "task_options.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>

namespace dice::cli {

const char* const task_policy_options[10] = {
  "--time-limit", "--retries", "--backoff", "--delay", "--at", "--expires", "--keep",
  "--key", "--after", "--on-parent-failure"};

bool parse_duration_ms(const std::string& text, std::int64_t& ms,
                       std::string& error) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  auto unit = text.substr(digits);
  static const std::map<std::string, std::int64_t> units{
    {"", 1000}, {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000},
    {"d", 86'400'000}};
  auto u = units.find(unit);
  if (digits == 0 || digits > 12 || u == units.end()) {
    error = "'" + text + "' is not a duration (like 500ms, 30s, 10m, 2h, 1d)";
    return false;
  }
  ms = std::stoll(text.substr(0, digits)) * u->second;
  return true;
}

bool parse_time_ms(const std::string& text, std::int64_t now_ms,
                   std::int64_t& at_ms, std::string& error) {
  std::int64_t ms = 0;
  std::string ignored;
  auto rel = text.size() > 1 && text[0] == '+' ? text.substr(1) : text;
  if (parse_duration_ms(rel, ms, ignored)) {
    at_ms = now_ms + ms;
    return true;
  }
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
  bool utc = !text.empty() && text.back() == 'Z';
  auto t = utc ? text.substr(0, text.size() - 1) : text;
  std::time_t now = static_cast<std::time_t>(now_ms / 1000);
  auto whole = [&](int fields, int want) {
    return fields == want && n == static_cast<int>(t.size());
  };
  bool dated =
    whole(std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n), 6);
  if (!dated) {
    s = 0;
    n = 0;
    dated = whole(std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &d, &h, &mi, &n), 5);
  }
  if (dated) {
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
  } else if (n = 0, !utc && whole(std::sscanf(t.c_str(), "%2d:%2d%n", &h, &mi, &n), 2)) {
    localtime_r(&now, &tm);
  } else {
    error = "'" + text + "' is not a time (like 10m from now, 18:00, "
            "2026-11-26T18:00, or 2026-11-26T18:00:00Z in UTC)";
    return false;
  }
  if ((dated && (mo < 1 || mo > 12 || d < 1 || d > 31)) || h < 0 || mi < 0 || s < 0 || h > 23 || mi > 59 || s > 60) {
    error = "'" + text + "' is not a valid date and time";
    return false;
  }
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  tm.tm_isdst = -1;
  auto at = utc ? timegm(&tm) : std::mktime(&tm);
  if (at == static_cast<std::time_t>(-1)) {
    error = "'" + text + "' is not a valid date and time";
    return false;
  }
  // A bare time of day that passed already today means tomorrow's.
  if (!dated && at <= now)
    at += 86'400;
  at_ms = static_cast<std::int64_t>(at) * 1000;
  return true;
}

bool add_task_policy(const std::map<std::string, std::string>& opts,
                     std::int64_t now_ms, nlohmann::json& body,
                     std::string& error) {
  auto has = [&](const char* o) { return opts.count(o) > 0; };
  auto bad = [&](const char* o, const std::string& why) {
    error = std::string(o) + ": " + why;
    return false;
  };
  std::int64_t v = 0;
  std::string why;
  for (auto [option, field] : {std::pair{"--time-limit", "time_limit_ms"},
                               {"--backoff", "backoff_ms"}, {"--delay", "delay_ms"},
                               {"--keep", "keep_for_ms"}})
    if (has(option)) {
      if (!parse_duration_ms(opts.at(option), v, why))
        return bad(option, why);
      body[field] = v;
    }
  if (has("--delay") && has("--at"))
    return bad("--at", "give --delay or --at, not both");
  if (has("--at")) {
    if (!parse_time_ms(opts.at("--at"), now_ms, v, why))
      return bad("--at", why);
    body["not_before_ms"] = v;
  }
  if (has("--expires")) {
    if (!parse_time_ms(opts.at("--expires"), now_ms, v, why))
      return bad("--expires", why);
    body["expires_ms"] = v;
  }
  if (has("--retries")) {
    const auto& text = opts.at("--retries");
    if (text.empty() || text.size() > 3
        || text.find_first_not_of("0123456789") != std::string::npos
        || std::stoi(text) > 99)
      return bad("--retries", "must be a number from 0 to 99 (at most N+1 executions)");
    body["retries"] = std::stoi(text);
  }
  if (has("--key")) {
    if (opts.at("--key").empty())
      return bad("--key", "must not be empty");
    body["key"] = opts.at("--key");
  }
  if (has("--after")) {
    auto ids = nlohmann::json::array();
    const auto& list = opts.at("--after");
    for (std::size_t from = 0; from <= list.size();) {
      auto to = std::min(list.find(',', from), list.size());
      if (to == from)
        return bad("--after", "must list task ids, comma-separated");
      ids.push_back(list.substr(from, to - from));
      from = to + 1;
    }
    body["after"] = std::move(ids);
  }
  if (has("--on-parent-failure")) {
    const auto& f = opts.at("--on-parent-failure");
    if (f != "cancel" && f != "run")
      return bad("--on-parent-failure", "must be cancel (the default) or run");
    if (!has("--after"))
      return bad("--on-parent-failure", "needs --after");
    body["on_parent_failure"] = f;
  }
  return true;
}

} // namespace dice::cli
