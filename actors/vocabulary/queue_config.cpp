#include "vocabulary/queue_config.hpp"

#include <algorithm>

namespace dice {

millis queue_config::running_hold_ms() const {
  return std::max<millis>(
    std::min(running_interval_ms,
             (running_timeout_ms - running_interval_ms) / 2),
    0);
}

std::string queue_config::problem() const {
  if (claim_window_ms < 0 || matched_claim_window_ms < 0)
    return "claim window must not be negative";
  if (submit_claim_ms < -1)
    return "submit claim time must be -1 (never) or more";
  if (claim_stagger_ms < 0)
    return "claim stagger must not be negative";
  if (running_interval_ms <= 0)
    return "RUNNING heartbeat interval must be positive";
  // Otherwise healthy executions would be re-queued between two heartbeats.
  if (running_timeout_ms <= running_interval_ms)
    return "RUNNING timeout must be longer than the heartbeat interval";
  if (finished_hold_ms < 0)
    return "finished hold must not be negative";
  if (requeue_jitter_ms < 0)
    return "re-queue jitter must not be negative";
  if (slots == 0)
    return "slots must be at least 1";
  if (submit_window == 0 || submit_chunk == 0 || submit_in_flight == 0)
    return "submit window, chunk and in-flight limit must be at least 1";
  if (max_attempts == 0)
    return "max attempts must be at least 1";
  if (retry_backoff_ms < 0 || retry_backoff_max_ms < retry_backoff_ms)
    return "retry backoff range must be 0 <= backoff <= max";
  if (keep_finished_ms < 0 || forget_grid_ms < 0 || forgotten_ids_ms < 0)
    return "keep-finished, forget grid and forgotten ids times must not be negative";
  if (op_log_limit == 0)
    return "op log limit must be at least 1";
  if (sync_batch_ops == 0)
    return "sync batch must hold at least 1 op";
  if (wire_budget == 0 || sync_reply_bytes == 0)
    return "wire budget and sync reply bytes must be positive";
  if (sync_interval_ms <= 0)
    return "sync interval must be positive";
  if (compact_interval_ms < 0)
    return "compaction interval must not be negative";
  if (stable_point_interval_ms <= 0)
    return "stable point interval must be positive";
  if (resolver.backoff_min_ms < 0
      || resolver.backoff_max_ms < resolver.backoff_min_ms)
    return "answer back-off range must be 0 <= min <= max";
  // Otherwise the asker asks again before the slowest answer could come.
  if (resolver.resolve_window_ms <= resolver.backoff_max_ms)
    return "resolve window must be longer than the answer back-off";
  if (resolver.witness_window_ms <= 0)
    return "witness window must be positive";
  // Unsigned settings read from "-1" become 4 billion questions.
  if (resolver.resolve_tries > 64 || resolver.witness_tries > 64)
    return "unknown-task questions (resolve and witness tries) must be at most 64";
  if (requeue_confirm_ms < 0)
    return "re-queue confirmation must not be negative";
  if (requeue_questions > 16)
    return "questions before a re-queue must be at most 16";
  if (battery > 100)
    return "battery must be a level in 0..100";
  return {};
}

} // namespace dice
