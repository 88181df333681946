#include "http_api/waiting_room.hpp"

#include <algorithm>
#include <cstdint>
#include <sys/eventfd.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace dice {

namespace {

// The longest poll() sleeps without a deadline due: stop() and new guests
// wake it at once anyway.
constexpr int max_poll_ms = 1000;

} // namespace

waiting_room::waiting_room(std::chrono::milliseconds idle_timeout,
                           std::function<void(int)> ready)
  : idle_timeout_(idle_timeout), ready_(std::move(ready)) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  thread_ = std::thread([this] { run(); });
}

waiting_room::~waiting_room() {
  stop();
  if (wake_fd_ >= 0)
    ::close(wake_fd_);
}

void waiting_room::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof(one));
}

void waiting_room::close_guest(const guest& g) {
  ::shutdown(g.fd, SHUT_RDWR);
  ::close(g.fd);
}

void waiting_room::park(int fd) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopped_) {
      guests_.push_back({fd, clock::now()});
      fd = -1;
    }
  }
  if (fd >= 0) {
    close_guest({fd, clock::now()});
    ++dropped_;
  } else
    wake();
}

bool waiting_room::evict_oldest() {
  guest g;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (guests_.empty())
      return false;
    g = guests_.front();
    guests_.pop_front();
  }
  // The thread may be polling this descriptor: closing it ends that wait
  // with an event it no longer finds among the guests, which it ignores.
  close_guest(g);
  ++evicted_;
  wake();
  return true;
}

void waiting_room::stop() {
  std::deque<guest> left;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_)
      return;
    stopped_ = true;
    left.swap(guests_);
  }
  wake();
  if (thread_.joinable())
    thread_.join();
  for (auto& g : left) {
    close_guest(g);
    ++dropped_;
  }
}

void waiting_room::run() {
  std::vector<pollfd> fds;
  for (;;) {
    auto timeout = max_poll_ms;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopped_)
        return;
      fds.assign(1, pollfd{wake_fd_, POLLIN, 0});
      for (const auto& g : guests_)
        fds.push_back(pollfd{g.fd, POLLIN, 0});
      if (!guests_.empty()) {
        auto due = guests_.front().since + idle_timeout_ - clock::now();
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(due).count();
        timeout = static_cast<int>(std::clamp<long long>(ms + 1, 0, max_poll_ms));
      }
    }
    ::poll(fds.data(), fds.size(), timeout);
    std::uint64_t drained = 0;
    [[maybe_unused]] auto n = ::read(wake_fd_, &drained, sizeof(drained));
    std::vector<int> readable;
    std::vector<guest> expired;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopped_)
        return;
      auto now = clock::now();
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents == 0)
          continue;
        // Readable (or closed by the client, which a read reports).
        auto it = std::find_if(guests_.begin(), guests_.end(),
                               [&](const guest& g) { return g.fd == fds[i].fd; });
        if (it != guests_.end()) {
          readable.push_back(it->fd);
          guests_.erase(it);
        }
      }
      while (!guests_.empty() && guests_.front().since + idle_timeout_ <= now) {
        expired.push_back(guests_.front());
        guests_.pop_front();
      }
    }
    for (auto fd : readable)
      ready_(fd);
    for (auto& g : expired) {
      close_guest(g);
      ++idle_closed_;
    }
  }
}

} // namespace dice
