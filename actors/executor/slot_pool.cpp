#include "executor/slot_pool.hpp"

namespace dice {

slot_pool::slot_pool(std::size_t slots, task_kinds kinds, done_handler on_done,
                     std::function<millis()> clock)
  : kinds_(std::move(kinds)), on_done_(std::move(on_done)), clock_(std::move(clock)) {
  if (slots == 0)
    slots = 1;
  for (std::size_t i = 0; i < slots; ++i)
    threads_.emplace_back([this] { slot_loop(); });
  watchdog_ = std::thread([this] { watchdog_loop(); });
}

slot_pool::~slot_pool() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
    for (auto& [id, token] : active_)
      token->cancel();
  }
  cv_.notify_all();
  watchdog_cv_.notify_all();
  for (auto& t : threads_)
    t.join();
  watchdog_.join();
}

void slot_pool::watchdog_loop() {
  std::unique_lock<std::mutex> lock{mtx_};
  while (!stopping_) {
    if (deadlines_.empty()) {
      watchdog_cv_.wait(lock);
      continue;
    }
    auto first = deadlines_.begin();
    if (steady::now() < first->first) {
      watchdog_cv_.wait_until(lock, first->first);
      continue;
    }
    first->second.timed_out->store(true);
    first->second.token->cancel();
    deadlines_.erase(first);
  }
}

void slot_pool::run(execution_request req) {
  auto token = std::make_shared<cancel_token>();
  {
    std::lock_guard<std::mutex> guard{mtx_};
    active_.emplace(req.task_id, token);
    queue_.push_back(job{std::move(req), std::move(token),
                         std::make_shared<std::atomic<bool>>(false)});
  }
  cv_.notify_one();
}

bool slot_pool::cancel(const std::string& task_id) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto [first, last] = active_.equal_range(task_id);
  for (auto it = first; it != last; ++it)
    it->second->cancel();
  return first != last;
}

std::size_t slot_pool::busy() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return busy_;
}

std::size_t slot_pool::waiting() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return queue_.size();
}

void slot_pool::slot_loop() {
  for (;;) {
    job j;
    {
      std::unique_lock<std::mutex> lock{mtx_};
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping and nothing left
      j = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
      // The limit counts from the start, not from the wait for a slot.
      if (j.req.time_limit_ms > 0) {
        deadlines_.emplace(steady::now()
                             + std::chrono::milliseconds(j.req.time_limit_ms),
                           j);
        watchdog_cv_.notify_all();
      }
    }
    auto result = execute(j);
    {
      std::lock_guard<std::mutex> guard{mtx_};
      --busy_;
      for (auto d = deadlines_.begin(); d != deadlines_.end(); ++d)
        if (d->second.token == j.token) {
          deadlines_.erase(d);
          break;
        }
      auto [first, last] = active_.equal_range(j.req.task_id);
      for (auto it = first; it != last; ++it)
        if (it->second == j.token) {
          active_.erase(it);
          break;
        }
    }
    on_done_(std::move(result));
  }
}

execution_result slot_pool::execute(const job& j) {
  execution_result r;
  r.task_id = j.req.task_id;
  r.attempt = j.req.attempt;
  r.started_ms = clock_();
  auto fn = kinds_.find(j.req.kind);
  task_outcome out;
  if (j.token->canceled()) {
    out = task_outcome::failure("canceled");
  } else if (past_expiry(j.req, r.started_ms)) {
    r.expired = true;
    out = task_outcome::invalid(expired_unstarted);
  } else if (!fn && !kinds_.outside()) {
    out = task_outcome::invalid("unknown task kind '" + j.req.kind + "'");
  } else {
    if (on_begun_)
      on_begun_(r);
    try {
      out = fn ? (*fn)(j.req, *j.token) : (*kinds_.outside())(j.req, *j.token);
    } catch (const std::exception& e) {
      out = task_outcome::failure(std::string("task threw: ") + e.what());
    } catch (...) {
      out = task_outcome::failure("task threw a non-standard exception");
    }
  }
  r.finished_ms = clock_();
  r.canceled = j.token->canceled();
  r.ok = out.ok && !r.canceled;
  r.final = out.final && !r.ok;
  (r.ok ? r.result : r.reason) = std::move(out.result_or_reason);
  if (r.canceled && r.reason.empty())
    r.reason = "canceled";
  if (*j.timed_out) {
    // Stopped by its time limit, not by the queue: a failed attempt.
    r.canceled = false;
    r.ok = false;
    r.reason = "time limit of " + std::to_string(j.req.time_limit_ms)
               + " ms exceeded";
  }
  return r;
}

} // namespace dice
