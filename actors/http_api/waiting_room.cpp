#include "http_api/waiting_room.hpp"

#include <algorithm>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace dice {

namespace {

// The longest epoll_wait() sleeps without a deadline due: stop() and new
// guests wake it at once anyway.
constexpr int max_wait_ms = 1000;
// What one readiness event reads at most, so one fast sender cannot keep
// the room from the others (epoll reports it again while bytes remain).
constexpr std::size_t read_chunk = 16 * 1024;
constexpr int reads_per_event = 4;

} // namespace

struct waiting_room::outcome {
  std::vector<std::pair<guest, waiting_list::request>> ready;
  std::vector<guest> hung_up;
  std::vector<guest> failed;
  std::vector<std::pair<guest, waiting_list::close_reason>> expired;
};

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

waiting_room::guest waiting_room::forget(int fd) {
  list_.remove(fd);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  auto it = guests_.find(fd);
  if (it == guests_.end())
    return nullptr;
  auto c = std::move(it->second);
  guests_.erase(it);
  return c;
}

void waiting_room::watch(int fd, bool writable) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (writable ? EPOLLOUT : 0u);
  ev.data.fd = fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev);
}

void waiting_room::park(guest c, std::string pending) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) {
    ++dropped_;
    return; // `c` closes here
  }
  auto fd = c->fd();
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = fd;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    ++dropped_;
    return;
  }
  list_.add(fd, waiting_list::clock::now(), std::move(pending));
  guests_.emplace(fd, std::move(c));
  wake();
}

bool waiting_room::evict_oldest() {
  guest c;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto oldest = list_.oldest();
    if (!oldest)
      return false;
    c = forget(*oldest);
  }
  c.reset(); // closes, outside the lock
  ++evicted_;
  return true;
}

void waiting_room::stop() {
  std::vector<guest> left;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_)
      return;
    stopped_ = true;
    while (auto fd = list_.oldest())
      left.push_back(forget(*fd));
  }
  wake();
  if (thread_.joinable())
    thread_.join();
  dropped_ += left.size();
}

void waiting_room::read_from(int fd, outcome& out) {
  auto& c = *guests_.at(fd);
  char buf[read_chunk];
  // TLS may hold decrypted bytes past the last read that no event will
  // announce: those are read now, whatever the count.
  for (int i = 0; i < reads_per_event || c.pending(); ++i) {
    auto r = c.read(buf, sizeof(buf));
    using st = http_connection::status;
    if (r.state == st::want_read || r.state == st::want_write) {
      watch(fd, r.state == st::want_write);
      return;
    }
    if (r.state != st::ok) { // closed by the client, reset, or a TLS error
      (r.state == st::closed ? out.hung_up : out.failed).push_back(forget(fd));
      return;
    }
    auto whole = list_.receive(fd, {buf, r.bytes}, waiting_list::clock::now());
    if (whole) {
      out.ready.emplace_back(forget(fd), std::move(*whole));
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
    outcome out;
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
          read_from(fd, out);
        }
      }
      for (auto& [fd, why] : list_.expire(waiting_list::clock::now()))
        out.expired.emplace_back(forget(fd), why);
    }
    for (auto& [c, request] : out.ready)
      ready_(std::move(c), std::move(request));
    hung_up_ += out.hung_up.size();
    failed_ += out.failed.size();
    for (auto& [c, why] : out.expired)
      ++(why == waiting_list::close_reason::idle ? idle_closed_ : timed_out_);
    // The connections close as `out` goes, outside the lock.
  }
}

} // namespace dice
