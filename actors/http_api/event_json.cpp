#include "http_api/event_json.hpp"

#include <nlohmann/json.hpp>

#include "mutex/lock_name.hpp"

namespace dice {

std::optional<event_request> parse_event_request(const std::string& body,
                                                 std::string& error) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("topic")
      || !j["topic"].is_string() || !j.contains("data") || !j["data"].is_string()) {
    error = "body must be {\"topic\": NAME, \"data\": STRING}";
    return std::nullopt;
  }
  event_request r{j["topic"].get<std::string>(), j["data"].get<std::string>()};
  if (auto p = lock_name_problem(r.topic, "topic"); !p.empty()) {
    error = p;
    return std::nullopt;
  }
  if (r.data.size() > max_event_bytes) {
    error = "data longer than " + std::to_string(max_event_bytes) + " bytes";
    return std::nullopt;
  }
  return r;
}

} // namespace dice
