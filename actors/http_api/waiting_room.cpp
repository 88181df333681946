#include "http_api/waiting_room.hpp"

#include <algorithm>
#include <cerrno>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace dice {

namespace {

// The longest epoll_wait() sleeps without a deadline due: stop() and new
// guests wake it at once anyway.
constexpr int max_wait_ms = 1000;
// What one readiness event reads at most, so one fast sender cannot keep
// the room from the others (epoll reports it again while bytes remain).
constexpr std::size_t read_chunk = 16 * 1024;
constexpr int reads_per_event = 4;

void close_socket(int fd) {
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

} // namespace

waiting_room::waiting_room(waiting_list::limits limits, ready_fn ready)
  : ready_(std::move(ready)), list_(limits) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  thread_ = std::thread([this] { run(); });
}

waiting_room::~waiting_room() {
  stop();
  ::close(wake_fd_);
  ::close(epoll_fd_);
}

void waiting_room::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof(one));
}

void waiting_room::forget(int fd) {
  list_.remove(fd);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

void waiting_room::park(int fd, std::string pending) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopped_) {
      list_.add(fd, waiting_list::clock::now(), std::move(pending));
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP;
      ev.data.fd = fd;
      if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0) {
        wake();
        return;
      }
      list_.remove(fd);
    }
  }
  close_socket(fd);
  ++dropped_;
}

bool waiting_room::evict_oldest() {
  int fd = -1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto oldest = list_.oldest();
    if (!oldest)
      return false;
    fd = *oldest;
    forget(fd);
  }
  close_socket(fd);
  ++evicted_;
  return true;
}

void waiting_room::stop() {
  std::vector<int> left;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_)
      return;
    stopped_ = true;
    while (auto fd = list_.oldest()) {
      forget(*fd);
      left.push_back(*fd);
    }
  }
  wake();
  if (thread_.joinable())
    thread_.join();
  for (auto fd : left) {
    close_socket(fd);
    ++dropped_;
  }
}

void waiting_room::read_from(int fd,
                             std::vector<std::pair<int, waiting_list::request>>& ready,
                             std::vector<int>& hung_up) {
  char buf[read_chunk];
  for (int i = 0; i < reads_per_event; ++i) {
    auto n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return;
    if (n <= 0) { // closed by the client, or reset
      forget(fd);
      hung_up.push_back(fd);
      return;
    }
    auto r = list_.receive(fd, {buf, static_cast<std::size_t>(n)},
                           waiting_list::clock::now());
    if (r) {
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
      ready.emplace_back(fd, std::move(*r));
      return;
    }
  }
}

void waiting_room::run() {
  constexpr int max_events = 256;
  epoll_event events[max_events];
  for (;;) {
    auto timeout = max_wait_ms;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopped_)
        return;
      if (auto due = list_.next_deadline()) {
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    *due - waiting_list::clock::now()).count();
        timeout = static_cast<int>(std::clamp<long long>(ms + 1, 0, max_wait_ms));
      }
    }
    auto n = ::epoll_wait(epoll_fd_, events, max_events, timeout);
    std::vector<std::pair<int, waiting_list::request>> ready;
    std::vector<int> hung_up;
    std::vector<std::pair<int, waiting_list::close_reason>> expired;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopped_)
        return;
      for (int i = 0; i < n; ++i) {
        auto fd = events[i].data.fd;
        if (fd == wake_fd_) {
          std::uint64_t drained = 0;
          [[maybe_unused]] auto r = ::read(wake_fd_, &drained, sizeof(drained));
        } else if (list_.contains(fd)) { // else evicted since the wait began
          read_from(fd, ready, hung_up);
        }
      }
      expired = list_.expire(waiting_list::clock::now());
      for (auto& [fd, why] : expired)
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    }
    for (auto& [fd, request] : ready)
      ready_(fd, std::move(request));
    for (auto fd : hung_up) {
      close_socket(fd);
      ++hung_up_;
    }
    for (auto& [fd, why] : expired) {
      close_socket(fd);
      ++(why == waiting_list::close_reason::idle ? idle_closed_ : timed_out_);
    }
  }
}

} // namespace dice
