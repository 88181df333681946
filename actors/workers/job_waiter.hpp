#pragma once
// Where a slot thread waits for the end of a job a worker runs: settled
// once by the hub (the worker's answer, or why it will not come) or by a
// cancel, whichever is first.
#include <condition_variable>
#include <mutex>
#include <optional>

#include "executor/execution.hpp"

namespace dice {

class job_waiter {
public:
  /// The first call wins; later ones change nothing.
  void settle(task_outcome out) {
    {
      std::lock_guard<std::mutex> guard{mtx_};
      if (out_)
        return;
      out_ = std::move(out);
    }
    cv_.notify_all();
  }

  task_outcome wait() {
    std::unique_lock<std::mutex> guard{mtx_};
    cv_.wait(guard, [this] { return out_.has_value(); });
    return *out_;
  }

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  std::optional<task_outcome> out_;
};

} // namespace dice
