// POST /tasks bodies, straight into parse_submit (no server, no socket).
// Beyond not crashing, what it accepts must be what the body said: the
// known kind, numbers in range and equal to the JSON numbers, and a refusal
// always comes with a message that renders as the server renders it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "http_api/task_json.hpp"
#include "fuzz_require.hpp"

namespace {

using dice::fuzz::require;

const std::vector<std::string> kinds = {"sleep", "cpu", "echo", "shell"};

// The number in `body` under `key`, as the client wrote it (nlohmann reads
// it as signed or unsigned; dump() prints it back exactly).
std::string number_text(const nlohmann::json& body, const char* key) {
  return body.at(key).dump();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  // The server's default limits, and tight ones so their edges get hit.
  for (auto limits : {dice::submit_limits{}, dice::submit_limits{8, 3}}) {
    std::string error;
    auto r = dice::parse_submit(body, kinds, limits, error);
    if (!r) {
      require(!error.empty(), "a refusal says why");
      // As http_api's reply() renders it: must not throw.
      (void)nlohmann::json{{"error", error}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
      continue;
    }
    auto j = nlohmann::json::parse(body);
    require(std::find(kinds.begin(), kinds.end(), r->kind) != kinds.end(),
            "only a known kind is accepted");
    require(r->payload.size() <= limits.max_payload_bytes,
            "the payload is within the limit");
    if (j.contains("payload") && !j["payload"].is_string())
      require(r->payload == number_text(j, "payload"),
              "an integer payload is the number written");
    require(r->priority >= -1'000'000 && r->priority <= 1'000'000,
            "the priority is within range");
    if (j.contains("priority"))
      require(std::to_string(r->priority) == number_text(j, "priority"),
              "the priority is the number written");
    require(r->count >= 1 && r->count <= limits.max_count,
            "the count is within range");
    if (j.contains("count"))
      require(std::to_string(r->count) == number_text(j, "count"),
              "the count is the number written");
    // The policy: what was written, and usable (policy_problem passed).
    if (j.contains("time_limit_ms"))
      require(std::to_string(r->policy.time_limit_ms)
                == number_text(j, "time_limit_ms"),
              "the time limit is the number written");
    require(r->policy.max_attempts <= dice::max_task_attempts,
            "the attempts are within range");
    require(dice::policy_problem(r->policy, 0).empty(),
            "an accepted policy passes its own check");
  }
  return 0;
}
