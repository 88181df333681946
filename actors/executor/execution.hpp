#pragma once
// One execution of a task attempt, as the executor sees it.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "common/time.hpp"

namespace dice {

/// A parent's end, as its dependant's execution receives it.
struct parent_end {
  std::string task_id;
  std::string state;            // "done", or how it ended otherwise
  std::string result_or_reason; // done: its result; else why it ended
};

struct execution_request {
  std::string task_id;
  std::uint32_t attempt = 0;
  std::string kind;
  std::string payload;
  /// Stopped after this long (ms; 0: no limit): a failed attempt.
  millis time_limit_ms = 0;
  /// Not started at or after this wall time (ms; 0: never expires).
  millis expires_ms = 0;
  /// The ends of the tasks it runs after, in the order it named them.
  std::vector<parent_end> parents;
};

/// Claimed ahead before its expiry, it reached a slot at or after it (`now`,
/// the node's clock): it is not run, and the task ends EXPIRED.
inline bool past_expiry(const execution_request& r, millis now) {
  return r.expires_ms > 0 && now >= r.expires_ms;
}
/// The reason an execution past its expiry reports.
constexpr const char* expired_unstarted = "not started before it expired";

struct execution_result {
  std::string task_id;
  std::uint32_t attempt = 0;
  bool ok = false;
  bool canceled = false;
  std::string result;   // on success
  std::string reason;   // on failure or cancel
  /// A failure no retry can fix (bad payload, unknown kind, program not
  /// allowed): the task ends at once instead of spending its attempts.
  bool final = false;
  /// Not run: its expiry passed while it waited for a slot.
  bool expired = false;
  millis started_ms = 0;
  millis finished_ms = 0;
};

/// Set by the executor to ask a running task to stop; task code polls it,
/// or waits on it instead of sleeping.
class cancel_token {
public:
  cancel_token();
  ~cancel_token();
  cancel_token(const cancel_token&) = delete;
  cancel_token& operator=(const cancel_token&) = delete;

  void cancel();
  bool canceled() const { return canceled_; }

  /// A descriptor that becomes readable once canceled, for code that waits
  /// in poll() on its own descriptors too; -1 if none could be made (then
  /// such code must poll canceled() now and then).
  int wake_fd() const { return wake_fd_; }

  /// Blocks until `deadline` or a cancel, whichever comes first; true if
  /// canceled. One wake-up, where polling would wake the thread every few ms.
  bool wait_until(std::chrono::steady_clock::time_point deadline) const {
    std::unique_lock<std::mutex> guard{mtx_};
    cv_.wait_until(guard, deadline, [this] { return canceled_.load(); });
    return canceled_;
  }

  /// Calls `fn` once on cancel (at once if canceled already), on the
  /// canceling thread: for code that waits on something of its own.
  void on_cancel(std::function<void()> fn) const;

private:
  std::atomic<bool> canceled_{false};
  mutable std::mutex mtx_;
  mutable std::condition_variable cv_;
  mutable std::vector<std::function<void()>> on_cancel_;
  int wake_fd_ = -1;
};

/// What a task function returns: success with a result, or a reason.
struct task_outcome {
  bool ok = false;
  std::string result_or_reason;
  bool final = false; // failed for good: a retry would fail alike

  static task_outcome success(std::string result) { return {true, std::move(result)}; }
  static task_outcome failure(std::string reason) { return {false, std::move(reason)}; }
  /// The task itself is wrong (its payload, say): no retry can fix it.
  static task_outcome invalid(std::string reason) {
    return {false, std::move(reason), true};
  }
};

} // namespace dice
