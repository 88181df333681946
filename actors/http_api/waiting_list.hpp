#pragma once
// The waiting room's book of connections that hold no server thread: what
// each has sent of its next request and when each must be closed. Plain,
// with the time passed in, so its rules are tested without sockets,
// threads or sleeps (waiting_room does the reading and closing).
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "http_api/request_framer.hpp"

namespace dice {

class waiting_list {
public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;

  struct limits {
    std::chrono::milliseconds idle_timeout;    // nothing sent yet
    std::chrono::milliseconds request_timeout; // from a request's first byte
    framing_limits framing;
  };
  /// A request read whole (or its head, see request_frame::head_only),
  /// for a server thread; bytes of a pipelined next request may follow.
  struct request {
    std::string bytes;
    time_point started; // its first byte: its deadline runs from here
  };
  enum class close_reason { idle, timed_out };

  explicit waiting_list(limits l) : limits_(l) {}

  /// `fd` waits from `now`. `pending`: the start of its next request,
  /// already read (a pipelined request's first bytes), which must not
  /// frame a request yet.
  void add(int fd, time_point now, std::string pending = {});
  bool contains(int fd) const { return guests_.count(fd) > 0; }
  /// Bytes read from `fd`: the request, which leaves the list with its
  /// connection, once they complete one; nothing while they do not.
  std::optional<request> receive(int fd, std::string_view bytes, time_point now);
  /// Takes `fd` off the list (its client closed it, or it was evicted).
  void remove(int fd);
  /// The connection that has waited longest, to close so a new one gets
  /// its place; none if the list is empty.
  std::optional<int> oldest() const;
  /// Takes off and returns the connections whose time ran out by `now`.
  std::vector<std::pair<int, close_reason>> expire(time_point now);
  /// When expire() next has something to do.
  std::optional<time_point> next_deadline() const;
  std::size_t size() const { return guests_.size(); }

private:
  struct guest {
    time_point since;    // waiting from
    time_point started;  // first byte of the request being read, if any
    time_point deadline;
    std::string bytes;
  };
  void set_deadline(int fd, guest& g, time_point deadline);

  limits limits_;
  std::unordered_map<int, guest> guests_;
  std::set<std::pair<time_point, int>> deadlines_;
};

} // namespace dice
