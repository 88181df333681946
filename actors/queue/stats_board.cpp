#include "queue/stats_board.hpp"

namespace dice {

void stats_board::post(poster who, const queue_counters& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  posted_[static_cast<std::size_t>(who)] = c;
}

void stats_board::post(const task_counts& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  counts_ = c;
}

queue_counters stats_board::total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_counters sum;
  for (const auto& c : posted_)
    sum += c;
  return sum;
}

task_counts stats_board::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

void stats_board::post_own(const runner_capabilities& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  own_ = r;
}

void stats_board::post_peers(std::vector<runner_capabilities> r) {
  std::lock_guard<std::mutex> lock(mutex_);
  peers_ = std::move(r);
}

std::vector<runner_capabilities> stats_board::runners() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<runner_capabilities> all{own_};
  all.insert(all.end(), peers_.begin(), peers_.end());
  return all;
}

} // namespace dice
