#pragma once
// One execution of a task attempt, as the executor sees it.
#include <atomic>
#include <cstdint>
#include <string>

#include "common/time.hpp"

namespace dice {

struct execution_request {
  std::string task_id;
  std::uint32_t attempt = 0;
  std::string kind;
  std::string payload;
};

struct execution_result {
  std::string task_id;
  std::uint32_t attempt = 0;
  bool ok = false;
  bool canceled = false;
  std::string result;   // on success
  std::string reason;   // on failure or cancel
  millis started_ms = 0;
  millis finished_ms = 0;
};

/// Set by the executor to ask a running task to stop; task code polls it.
class cancel_token {
public:
  void cancel() { canceled_ = true; }
  bool canceled() const { return canceled_; }

private:
  std::atomic<bool> canceled_{false};
};

/// What a task function returns: success with a result, or a reason.
struct task_outcome {
  bool ok = false;
  std::string result_or_reason;

  static task_outcome success(std::string result) { return {true, std::move(result)}; }
  static task_outcome failure(std::string reason) { return {false, std::move(reason)}; }
};

} // namespace dice
