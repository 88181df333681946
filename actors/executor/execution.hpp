#pragma once
// One execution of a task attempt, as the executor sees it.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
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

/// Set by the executor to ask a running task to stop; task code polls it,
/// or waits on it instead of sleeping.
class cancel_token {
public:
  void cancel() {
    {
      std::lock_guard<std::mutex> guard{mtx_};
      canceled_ = true;
    }
    cv_.notify_all();
  }
  bool canceled() const { return canceled_; }

  /// Blocks until `deadline` or a cancel, whichever comes first; true if
  /// canceled. One wake-up, where polling would wake the thread every few ms.
  bool wait_until(std::chrono::steady_clock::time_point deadline) const {
    std::unique_lock<std::mutex> guard{mtx_};
    cv_.wait_until(guard, deadline, [this] { return canceled_.load(); });
    return canceled_;
  }

private:
  std::atomic<bool> canceled_{false};
  mutable std::mutex mtx_;
  mutable std::condition_variable cv_;
};

/// What a task function returns: success with a result, or a reason.
struct task_outcome {
  bool ok = false;
  std::string result_or_reason;

  static task_outcome success(std::string result) { return {true, std::move(result)}; }
  static task_outcome failure(std::string reason) { return {false, std::move(reason)}; }
};

} // namespace dice
