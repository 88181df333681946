#include "embed/event_hub.hpp"

namespace dice::embed {

void event_hub::on_event(std::function<void(const task_event&)> fn) {
  std::lock_guard<std::mutex> guard{mtx_};
  callbacks_.push_back(std::move(fn));
}

void event_hub::publish(const task_event& ev) {
  std::vector<std::function<void(const task_event&)>> callbacks;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    callbacks = callbacks_;
    if (ev.ended()) {
      auto [it, fresh] = ended_.insert_or_assign(ev.id, ev);
      if (fresh)
        order_.push_back(ev.id);
      while (order_.size() > limit_) {
        ended_.erase(order_.front());
        order_.pop_front();
      }
    }
  }
  cv_.notify_all();
  // Outside the lock: a callback may call back into the node.
  for (auto& fn : callbacks)
    fn(ev);
}

std::optional<task_event> event_hub::await(const std::string& id,
                                           std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock{mtx_};
  std::optional<task_event> out;
  cv_.wait_for(lock, timeout, [&] {
    auto it = ended_.find(id);
    if (it != ended_.end())
      out = it->second;
    return out.has_value();
  });
  return out;
}

std::size_t event_hub::remembered() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return ended_.size();
}

} // namespace dice::embed
