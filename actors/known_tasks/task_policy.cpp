#include "known_tasks/task_policy.hpp"

#include <cstdio>
#include <set>

#include <openssl/evp.h>

#include "common/defaults.hpp"

namespace dice {

std::string policy_problem(const task_policy& p, millis now) {
  auto within = [](millis v) { return v >= 0 && v <= max_task_wait_ms; };
  if (!within(p.time_limit_ms))
    return "'time_limit_ms' must be from 0 to " + std::to_string(max_task_wait_ms);
  if (p.max_attempts > max_task_attempts)
    return "'max_attempts' must be from 1 to " + std::to_string(max_task_attempts);
  if (!within(p.backoff_ms))
    return "'backoff_ms' must be from 0 to " + std::to_string(max_task_wait_ms);
  if (!within(p.delay_ms) || !within(p.expires_in_ms))
    return "'delay_ms' and 'expires_in_ms' must be from 0 to "
           + std::to_string(max_task_wait_ms);
  if (p.delay_ms > 0 && p.not_before_ms > 0)
    return "give 'delay_ms' or 'not_before_ms', not both";
  if (p.expires_in_ms > 0 && p.expires_ms > 0)
    return "give 'expires_in_ms' or 'expires_ms', not both";
  if (p.not_before_ms < 0 || p.expires_ms < 0)
    return "'not_before_ms' and 'expires_ms' are wall-clock ms since the epoch";
  auto start = p.not_before_ms > 0 ? p.not_before_ms : now + p.delay_ms;
  auto expires = p.expires_ms > 0 ? p.expires_ms
                 : p.expires_in_ms > 0 ? now + p.expires_in_ms : 0;
  if (expires > 0 && expires <= now)
    return "the task would expire before it is submitted ('expires_ms' is "
           + std::to_string(now - expires) + " ms in the past)";
  if (expires > 0 && expires <= start)
    return "the task would expire before it may start (expiry is not after "
           "its delay)";
  if (p.keep_for_ms > max_task_wait_ms)
    return "'keep_for_ms' must be from 0 to " + std::to_string(max_task_wait_ms);
  if (p.key.size() > max_task_key_bytes)
    return "'key' must be at most " + std::to_string(max_task_key_bytes) + " bytes";
  if (p.after.size() > max_task_parents)
    return "'after' may name at most " + std::to_string(max_task_parents) + " tasks";
  std::set<std::string> seen;
  std::size_t bytes = 0;
  for (const auto& parent : p.after) {
    // With the largest payload, the spec still fits one datagram.
    if ((bytes += parent.size() + 2) > max_task_after_bytes)
      return "'after' lists more than " + std::to_string(max_task_after_bytes)
             + " bytes of task ids";
    if (parent.empty() || parent.size() > max_task_id_bytes)
      return "'after' must list task ids of 1 to "
             + std::to_string(max_task_id_bytes) + " bytes";
    if (!seen.insert(parent).second)
      return "'after' names task " + parent + " twice";
  }
  if (p.run_after_failure && p.after.empty())
    return "'on_parent_failure' needs 'after'";
  return {};
}

void apply_policy(const task_policy& p, millis now, std::size_t i,
                  std::size_t count, wire::TaskSpec& spec) {
  spec.set_time_limit_ms(p.time_limit_ms);
  spec.set_max_attempts(p.max_attempts);
  spec.set_backoff_ms(p.backoff_ms);
  spec.set_not_before_ms(p.not_before_ms > 0 ? p.not_before_ms
                         : p.delay_ms > 0    ? now + p.delay_ms
                                             : 0);
  spec.set_expires_ms(p.expires_ms > 0      ? p.expires_ms
                      : p.expires_in_ms > 0 ? now + p.expires_in_ms
                                            : 0);
  if (p.keep_for_ms >= 0)
    spec.set_keep_for_ms(p.keep_for_ms);
  spec.mutable_after()->Assign(p.after.begin(), p.after.end());
  spec.set_run_after_failure(p.run_after_failure);
  if (!p.key.empty()) {
    spec.set_key(nth_task_key(p.key, i, count));
    spec.set_id(keyed_task_id(spec.key()));
  }
}

std::string spec_size_problem(const wire::TaskSpec& spec) {
  constexpr std::size_t most = defaults::max_datagram_bytes - 2048;
  auto size = spec.ByteSizeLong();
  if (size <= most)
    return {};
  return "the task takes " + std::to_string(size) + " bytes with its payload "
         "and 'after'; at most " + std::to_string(most) + " fit one datagram";
}

std::string keyed_task_id(const std::string& key) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(key.data(), key.size(), md, &len, EVP_sha256(), nullptr);
  std::string id = "key-";
  char hex[3];
  for (unsigned int i = 0; i < 12 && i < len; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", md[i]);
    id += hex;
  }
  return id;
}

std::string nth_task_key(const std::string& key, std::size_t i,
                         std::size_t count) {
  return count <= 1 ? key : key + "/" + std::to_string(i + 1);
}

} // namespace dice
