#pragma once
// The worker part of the HTTP API (docs/workers.md): parsing what a worker
// sends, rendering what it gets. Plain functions over plain values, so bad
// input is tested without a server.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workers/worker_board.hpp"

namespace dice {

struct worker_join_request {
  std::vector<std::string> kinds;
  std::uint64_t concurrency = 1;
  std::string name; // for people: host and pid, say
};

struct worker_take_request {
  std::uint64_t max = 1;  // jobs it can start now (0: only cancels)
  millis wait_ms = 10'000; // answer empty after this if nothing comes
};

constexpr millis max_worker_wait_ms = 30'000;

/// POST /workers: {"kinds": [..], "concurrency"?, "name"?}.
std::optional<worker_join_request> parse_worker_join(const std::string& body,
                                                     std::string& error);
/// POST /workers/ID/take: {"max"?, "wait_ms"?} (an empty body is {}).
std::optional<worker_take_request> parse_worker_take(const std::string& body,
                                                     std::string& error);
/// POST /workers/ID/done: {"job", "ok", "result"? | "reason"?, "final"?}.
std::optional<job_end> parse_worker_done(const std::string& body, std::string& error);

/// {"jobs": [{"job", "task_id", "attempt", "kind", "payload",
/// "time_limit_ms"}], "cancel": [job, ..]}.
nlohmann::json worker_take_json(const worker_take& t);
/// GET /workers: {"workers": [..], "kinds", "queued", "lease_ms", counters}.
nlohmann::json workers_json(const worker_report& r);

} // namespace dice
