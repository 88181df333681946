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
  {
    std::lock_guard<std::mutex> guard{mtx_};
    canceled_ = true;
  }
  cv_.notify_all();
  if (wake_fd_ >= 0) {
    std::uint64_t one = 1;
    // Nonblocking; a full counter is readable already.
    [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof(one));
  }
}

} // namespace dice
