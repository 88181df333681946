#pragma once
// Task events for an embedding program: the listener actor hands each event
// to the program's callbacks and remembers how tasks ended, so await() can
// be called before or after the end. Plain class (no CAF), thread-safe.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dice/task.hpp"

namespace dice::embed {

class event_hub {
public:
  /// Ends remembered; the oldest are forgotten beyond it.
  static constexpr std::size_t default_ended_limit = 65'536;

  explicit event_hub(std::size_t ended_limit = default_ended_limit)
    : limit_(ended_limit) {}

  void on_event(std::function<void(const task_event&)> fn);
  void publish(const task_event& ev);
  std::optional<task_event> await(const std::string& id,
                                  std::chrono::milliseconds timeout);
  std::size_t remembered() const;

private:
  std::size_t limit_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::vector<std::function<void(const task_event&)>> callbacks_;
  std::map<std::string, task_event> ended_;
  std::deque<std::string> order_; // ended_ keys, oldest first
};

} // namespace dice::embed
