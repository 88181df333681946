// POST /events bodies, straight into parse_event_request. Beyond not
// crashing: an accepted event has a valid topic and data within the limit
// and equal to what the body said; a refusal says why.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "http_api/event_json.hpp"
#include "mutex/lock_name.hpp"
#include "fuzz_require.hpp"

using dice::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  std::string error;
  auto e = dice::parse_event_request(body, error);
  if (!e) {
    dice::fuzz::refusal_renders(error);
    return 0;
  }
  require(dice::lock_name_problem(e->topic, "topic").empty(),
          "the topic is a valid name");
  require(e->data.size() <= dice::max_event_bytes, "the data is within the limit");
  auto j = nlohmann::json::parse(body);
  require(j["topic"] == e->topic && j["data"] == e->data,
          "topic and data are what the body said");
  // As the server renders a delivery: must not throw.
  (void)nlohmann::json{{"topic", e->topic}, {"data", e->data}}.dump(
    -1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
