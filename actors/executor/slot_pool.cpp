#include "executor/slot_pool.hpp"

namespace dice {

slot_pool::slot_pool(std::size_t slots, task_kinds kinds, done_handler on_done,
                     std::function<millis()> clock)
  : kinds_(std::move(kinds)), on_done_(std::move(on_done)), clock_(std::move(clock)) {
  if (slots == 0)
    slots = 1;
  for (std::size_t i = 0; i < slots; ++i)
    threads_.emplace_back([this] { slot_loop(); });
}

slot_pool::~slot_pool() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
    for (auto& [id, token] : active_)
      token->cancel();
  }
  cv_.notify_all();
  for (auto& t : threads_)
    t.join();
}

void slot_pool::run(execution_request req) {
  auto token = std::make_shared<cancel_token>();
  {
    std::lock_guard<std::mutex> guard{mtx_};
    active_.emplace(req.task_id, token);
    queue_.push_back(job{std::move(req), std::move(token)});
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
    }
    auto result = execute(j);
    {
      std::lock_guard<std::mutex> guard{mtx_};
      --busy_;
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
  } else if (!fn) {
    out = task_outcome::failure("unknown task kind '" + j.req.kind + "'");
  } else {
    try {
      out = (*fn)(j.req.payload, *j.token);
    } catch (const std::exception& e) {
      out = task_outcome::failure(std::string("task threw: ") + e.what());
    } catch (...) {
      out = task_outcome::failure("task threw a non-standard exception");
    }
  }
  r.finished_ms = clock_();
  r.canceled = j.token->canceled();
  r.ok = out.ok && !r.canceled;
  (r.ok ? r.result : r.reason) = std::move(out.result_or_reason);
  if (r.canceled && r.reason.empty())
    r.reason = "canceled";
  return r;
}

} // namespace dice
