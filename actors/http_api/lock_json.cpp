#include "http_api/lock_json.hpp"

namespace dice {

std::optional<lock_request> parse_lock_request(const std::string& body,
                                               std::string& error) {
  auto fail = [&](std::string why) -> std::optional<lock_request> {
    error = std::move(why);
    return std::nullopt;
  };
  lock_request r;
  if (body.empty())
    return r;
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail("body must be a JSON object");
  for (auto& [key, value] : j.items())
    if (key != "token" && key != "wait_ms" && key != "lease_ms")
      return fail("unknown field '" + key + "'");
  if (j.contains("token")) {
    if (!j["token"].is_string() || j["token"].get<std::string>().size() > 128)
      return fail("'token' must be the string a previous answer gave");
    r.token = j["token"].get<std::string>();
  }
  auto number = [&](const char* key, millis lo, millis hi, millis& out) {
    if (!j.contains(key))
      return true;
    const auto& v = j[key];
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
      return false;
    out = v.get<millis>();
    return true;
  };
  if (!number("wait_ms", 0, max_lock_wait_ms, r.wait_ms))
    return fail("'wait_ms' must be an integer from 0 to "
                + std::to_string(max_lock_wait_ms));
  if (!number("lease_ms", min_lock_lease_ms, max_lock_lease_ms, r.lease_ms))
    return fail("'lease_ms' must be an integer from "
                + std::to_string(min_lock_lease_ms) + " to "
                + std::to_string(max_lock_lease_ms));
  return r;
}

nlohmann::json locks_json(const locks_view& v) {
  auto locks = nlohmann::json::array();
  for (const auto& l : v.cluster)
    locks.push_back({{"lock", l.resource},
                     {"holder", l.holder.empty() ? nlohmann::json(nullptr)
                                                 : nlohmann::json(l.holder)},
                     {"waiters", l.waiters}});
  auto local = nlohmann::json::array();
  for (const auto& r : v.local)
    local.push_back({{"lock", r.resource},
                     {"held", r.held},
                     {"owner", r.owner.empty() ? nlohmann::json(nullptr)
                                               : nlohmann::json(r.owner)},
                     {"waiters", r.waiters}});
  return {{"algorithm", v.algorithm},
          {"locks", std::move(locks)},
          {"local", std::move(local)},
          {"granted", v.granted},
          {"lost", v.lost},
          {"ignored", v.ignored},
          {"malformed", v.malformed}};
}

} // namespace dice
