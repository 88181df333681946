#pragma once
// A task's own policy, as a submit gives it (HTTP, CLI, embedding): time
// limit, attempts and backoff, delay, expiry, and the idempotency key. It
// becomes fields of the immutable spec, so every replica applies the same.
//
// `after` names the tasks it waits for (parents.hpp).
//
// The key names the task: the same key submitted again, at any node, by
// any client, on either side of a partition, is the same task id, and the
// replicas merge the copies into one task (known_tasks::learn_spec keeps
// one spec of them, the same everywhere).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

struct task_policy {
  millis time_limit_ms = 0;      // 0: none (a shell task has the node's)
  std::uint32_t max_attempts = 0; // 0: the node's --max-attempts
  millis backoff_ms = 0;         // 0: the node's --retry-backoff-ms
  millis delay_ms = 0;           // from the submit on; or
  millis not_before_ms = 0;      // wall ms (ETA)
  millis expires_in_ms = 0;      // from the submit on; or
  millis expires_ms = 0;         // wall ms
  millis keep_for_ms = -1;       // kept after its end; <0: the node's
  std::string key;               // "": a fresh id per task
  std::vector<std::string> after; // runs once these tasks are done
  bool run_after_failure = false; // ... or have ended in any way
};

/// Bounds a policy must keep (checked by policy_problem).
constexpr std::size_t max_task_key_bytes = 256;
constexpr std::uint32_t max_task_attempts = 100;
constexpr std::size_t max_task_parents = 1000;
constexpr std::size_t max_task_id_bytes = 256;
constexpr std::size_t max_task_after_bytes = 40 * 1024;
constexpr millis max_task_wait_ms = 365LL * 24 * 3600 * 1000; // delays, limits

/// Empty if `p` is usable at wall time `now`, else why not (names the
/// field as the HTTP API spells it).
std::string policy_problem(const task_policy& p, millis now);

/// Writes `p` into task `i` (0-based) of a submit of `count` specs at wall
/// time `now`; with a key, also its id and its own key (nth_task_key).
void apply_policy(const task_policy& p, millis now, std::size_t i,
                  std::size_t count, wire::TaskSpec& spec);

/// Empty if the whole spec (payload, `after`, locks...) fits a datagram
/// with room for its message, else why not.
std::string spec_size_problem(const wire::TaskSpec& spec);

/// The task id of key `key`: "key-" and 24 hex digits of its SHA-256
/// (96 bits: URL- and list-safe whatever bytes the key holds).
std::string keyed_task_id(const std::string& key);

/// The key of task `i` (0-based) of a submit of `count` tasks under `key`:
/// the key itself for one task, else "key/1", "key/2", ...
std::string nth_task_key(const std::string& key, std::size_t i,
                         std::size_t count);

} // namespace dice
