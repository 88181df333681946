#pragma once
// Connections of the HTTP API that have sent nothing yet (new ones, or
// kept alive between requests) wait here, on one thread, instead of each
// holding a server thread: a burst of idle connections, which took every
// httplib thread for its keep-alive timeout, costs a file descriptor each.
// A connection is handed to `ready` once it is readable, and closed when it
// stays silent past the idle timeout or is evicted to admit a new one.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace dice {

class waiting_room {
public:
  using clock = std::chrono::steady_clock;

  waiting_room(std::chrono::milliseconds idle_timeout,
               std::function<void(int fd)> ready);
  ~waiting_room();

  /// The room owns `fd` from now on. Once stopped it closes `fd` at once.
  void park(int fd);
  /// Closes the connection that has waited longest, if any waits: a new
  /// connection needs its place. False if the room is empty.
  bool evict_oldest();
  /// Closes every waiting connection and ends the thread; idempotent.
  void stop();

  std::uint64_t idle_closed() const { return idle_closed_; }
  std::uint64_t evicted() const { return evicted_; }
  /// Every connection the room closed, for whatever reason.
  std::uint64_t closed() const { return idle_closed_ + evicted_ + dropped_; }

private:
  struct guest {
    int fd;
    clock::time_point since;
  };
  void run();
  void wake();
  void close_guest(const guest& g);

  std::chrono::milliseconds idle_timeout_;
  std::function<void(int)> ready_;
  std::mutex mutex_;
  std::deque<guest> guests_; // oldest first
  bool stopped_ = false;
  int wake_fd_ = -1; // an eventfd: poll() returns when a guest arrives
  std::atomic<std::uint64_t> idle_closed_{0};
  std::atomic<std::uint64_t> evicted_{0};
  std::atomic<std::uint64_t> dropped_{0}; // closed because the room stopped
  std::thread thread_;
};

} // namespace dice
