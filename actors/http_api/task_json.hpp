#pragma once
// The task part of the HTTP API: parsing submissions, rendering tasks.
// Plain functions over plain values, so bad input is tested without a server.
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dice.pb.h"
#include "known_tasks/task_policy.hpp"
#include "known_tasks/task_query.hpp"
#include "known_tasks/state_names.hpp"
#include "known_tasks/task_state.hpp"

namespace dice {

struct submit_request {
  std::string kind;
  std::string payload;
  std::int32_t priority = 0;
  std::uint32_t count = 1;
  /// The task's data objects held per node (seed 000's first ranking
  /// criterion): {"node id": count}.
  std::vector<std::pair<std::string, std::uint32_t>> data_objects;
  std::vector<std::string> locks; // cluster-wide locks held while it runs
  task_policy policy;
};

struct submit_limits {
  std::size_t max_payload_bytes = 32 * 1024; // a task must fit one datagram
  std::uint32_t max_count = 10'000;
  std::size_t max_data_objects = 64; // nodes named, so the spec fits a datagram
};

/// Parses a POST /tasks body: {"kind", "payload", "priority"?, "count"?,
/// "data_objects"? ({"node id": count, ...}), "locks"?: [names]}, and the
/// task's policy: "time_limit_ms", "max_attempts" or "retries" (attempts
/// less one), "backoff_ms", "delay_ms" or "not_before_ms", "expires_in_ms"
/// or "expires_ms", "key", "after" ([task ids] it runs after) and
/// "on_parent_failure" ("cancel" or "run") (task_policy.hpp), checked at
/// wall time `now`.
/// `known_kinds` are the kinds this cluster runs (empty: any kind, for a
/// node that lets tasks wait for a runner). On bad input returns
/// nullopt and sets `error` to a message for the client.
std::optional<submit_request>
parse_submit(const std::string& body, const std::vector<std::string>& known_kinds,
             const submit_limits& limits, std::string& error, millis now = 0);

/// Why `payload` cannot run as `kind` (a built-in kind's number, a shell
/// program): a task that would fail every attempt is refused at submit.
/// Empty if it can.
std::string submit_payload_problem(const std::string& kind,
                                   const std::string& payload);

/// The specs a submit makes at wall time `now`: its policy applied (ids
/// from its key, if any), `count` of them.
std::vector<wire::TaskSpec> specs_of(const submit_request& sub, millis now);

/// Most ids one GET /tasks?ids=... may name (the URI limit is 8 KiB anyway).
constexpr std::size_t max_query_ids = 256;
/// Parses the `ids` parameter of GET /tasks: ids separated by commas (empty
/// items skipped). nullopt, with `error` set, if it names none or too many.
std::optional<std::vector<std::string>> parse_ids(const std::string& list,
                                                  std::string& error);

/// {"id", "kind", "state", "node", "attempts", "ready_at_ms",
/// "started_at_ms", "finished_at_ms"} (+ "result", "reason", "priority",
/// "enqueuer", "locks" with details). Times are wall-clock ms, null while unknown;
/// started_at_ms is known once the task ended DONE or FAILED.
nlohmann::json task_json(const wire::TaskSpec& spec, const wire::TaskState& state,
                         bool details);

} // namespace dice
