#pragma once
// Connections of the HTTP API that have no whole request yet (new ones,
// ones kept alive between requests, and ones whose request is still
// arriving) wait here, read by one thread with epoll, instead of each
// holding a server thread: a burst of idle connections, or clients that
// trickle a byte a second, cost a file descriptor and a buffer each.
// A connection is handed to `ready` with its request once the request is
// whole (waiting_list decides), and closed when it stays silent past the
// idle timeout, does not finish its request within the request timeout,
// or is evicted to admit a new one.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "http_api/http_connection.hpp"
#include "http_api/waiting_list.hpp"

namespace dice {

class waiting_room {
public:
  using guest = std::unique_ptr<http_connection>;
  using ready_fn = std::function<void(guest, waiting_list::request)>;

  waiting_room(waiting_list::limits limits, ready_fn ready);
  ~waiting_room();

  /// The room owns `c` from now on; `pending` starts its next request
  /// (see waiting_list::add). Once stopped it closes `c` at once.
  void park(guest c, std::string pending = {});
  /// Closes the connection that has waited longest, if any waits: a new
  /// connection needs its place. False if the room is empty.
  bool evict_oldest();
  /// Closes every waiting connection and ends the thread; idempotent.
  void stop();

  std::uint64_t idle_closed() const { return idle_closed_; }
  std::uint64_t evicted() const { return evicted_; }
  std::uint64_t timed_out() const { return timed_out_; }
  /// Closed on a socket or TLS error (a failed handshake, a bad record).
  std::uint64_t failed() const { return failed_; }
  /// Every connection the room closed, for whatever reason.
  std::uint64_t closed() const {
    return idle_closed_ + evicted_ + timed_out_ + hung_up_ + failed_ + dropped_;
  }

private:
  void run();
  void wake();
  struct outcome; // what one round of events did, acted on outside the lock
  /// Reads what `fd` has sent; under the lock.
  void read_from(int fd, outcome& out);
  /// Off the list and out of epoll, handed to the caller; under the lock.
  guest forget(int fd);
  /// Waits for `fd` to become readable, or writable too (TLS may need to
  /// write to go on reading); under the lock.
  void watch(int fd, bool writable);

  ready_fn ready_;
  std::mutex mutex_;
  waiting_list list_;
  std::unordered_map<int, guest> guests_; // by fd, as list_ knows them
  bool stopped_ = false;
  int epoll_fd_ = -1;
  int wake_fd_ = -1; // an eventfd: a new guest may bring an earlier deadline
  std::atomic<std::uint64_t> idle_closed_{0};
  std::atomic<std::uint64_t> evicted_{0};
  std::atomic<std::uint64_t> timed_out_{0};
  std::atomic<std::uint64_t> hung_up_{0}; // closed by the client first
  std::atomic<std::uint64_t> failed_{0};
  std::atomic<std::uint64_t> dropped_{0}; // closed because the room stopped
  std::thread thread_;
};

} // namespace dice
