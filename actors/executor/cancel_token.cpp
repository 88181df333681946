#include "executor/execution.hpp"

#include <cstdint>

#include <sys/eventfd.h>
#include <unistd.h>

namespace dice {

cancel_token::cancel_token()
  : wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
}

cancel_token::~cancel_token() {
  if (wake_fd_ >= 0)
    ::close(wake_fd_);
}

void cancel_token::cancel() {
  std::vector<std::function<void()>> told;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    canceled_ = true;
    told.swap(on_cancel_);
  }
  cv_.notify_all();
  for (auto& fn : told)
    fn();
  if (wake_fd_ >= 0) {
    std::uint64_t one = 1;
    // Nonblocking; a full counter is readable already.
    [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof(one));
  }
}

void cancel_token::on_cancel(std::function<void()> fn) const {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!canceled_) {
      on_cancel_.push_back(std::move(fn));
      return;
    }
  }
  fn();
}

} // namespace dice
