#pragma once
// A fixed number of execution slots, each a thread, so task code never runs
// on (or blocks) the actor scheduler. Requests beyond the free slots wait in
// FIFO order; a cancel reaches waiting and running executions alike.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "executor/execution.hpp"
#include "executor/task_kinds.hpp"

namespace dice {

class slot_pool {
public:
  using done_handler = std::function<void(execution_result)>;

  /// `on_done` is called on a slot thread for every request, exactly once.
  slot_pool(std::size_t slots, task_kinds kinds, done_handler on_done,
            std::function<millis()> clock = wall_clock_ms);
  ~slot_pool(); // cancels everything and joins the slots

  /// `on_begun` is called on a slot thread when a slot takes a request
  /// that will run (task_id, attempt, started_ms set). Set before run().
  void on_begun(done_handler on_begun) { on_begun_ = std::move(on_begun); }

  void run(execution_request req);
  /// Cancels the execution(s) of `task_id`; false if none is known.
  bool cancel(const std::string& task_id);

  std::size_t slots() const { return threads_.size(); }
  std::size_t busy() const;    // running now
  std::size_t waiting() const; // queued for a slot

private:
  struct job {
    execution_request req;
    std::shared_ptr<cancel_token> token;
    // Set by the watchdog when it stopped the job at its time limit.
    std::shared_ptr<std::atomic<bool>> timed_out;
  };
  void slot_loop();
  execution_result execute(const job& j);
  // Stops jobs that outlive their time limit (one thread for all slots).
  void watchdog_loop();

  task_kinds kinds_;
  done_handler on_done_;
  done_handler on_begun_;
  std::function<millis()> clock_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<job> queue_;
  std::multimap<std::string, std::shared_ptr<cancel_token>> active_;
  std::size_t busy_ = 0;
  bool stopping_ = false;
  // Running jobs with a time limit, by when it is reached.
  using steady = std::chrono::steady_clock;
  std::multimap<steady::time_point, job> deadlines_;
  std::condition_variable watchdog_cv_;
  std::vector<std::thread> threads_;
  std::thread watchdog_;
};

} // namespace dice
