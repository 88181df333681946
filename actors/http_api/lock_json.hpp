#pragma once
// The lock part of the HTTP API: parsing lock requests, rendering GET /locks.
// Plain functions over plain values, so bad input is tested without a server.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/time.hpp"
#include "mutex/mutex_node.hpp"

namespace dice {

struct lock_request {
  std::string token;       // "" for a new client
  millis wait_ms = 1000;   // answer 202 after this if not held yet
  millis lease_ms = 15'000; // the hold or the wait lapses without renewal
};

constexpr millis max_lock_wait_ms = 10'000;
constexpr millis min_lock_lease_ms = 1'000;
constexpr millis max_lock_lease_ms = 600'000;

/// Parses a POST /locks/NAME body: {"token"?, "wait_ms"?, "lease_ms"?}
/// (an empty body is {}). nullopt with `error` set on bad input.
std::optional<lock_request> parse_lock_request(const std::string& body,
                                               std::string& error);

/// {"algorithm", "locks": [{"lock", "holder", "waiters"}] (the cluster as
/// far as this node knows), "local": [{"lock", "held", "owner",
/// "waiters"}] (this node's owners), "granted", "lost", "ignored",
/// "malformed"}. Messages to a peer with no known address are counted by
/// the bridge (`unaddressed` in /stats).
nlohmann::json locks_json(const locks_view& v);

} // namespace dice
