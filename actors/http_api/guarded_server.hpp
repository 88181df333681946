#pragma once
// cpp-httplib's server with the limits a public API needs and this version
// of httplib lacks: a bounded number of open connections, requests read
// whole by one event loop before a server thread takes them, so idle and
// slow clients hold no thread (waiting_room), a deadline on each request
// (deadline_stream), and TLS done the same way, without blocking
// (http_connection). httplib still parses, routes and answers.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <httplib.h>

#include "node/http_config.hpp"
#include "http_api/tls_context.hpp"
#include "http_api/waiting_room.hpp"

namespace dice {

struct connection_counters {
  std::uint64_t open = 0;      // now: waiting, queued or being served
  std::uint64_t rejected = 0;  // answered 503 at once: every place was busy
  std::uint64_t evicted = 0;   // idle, closed to admit a new connection
  std::uint64_t idle_closed = 0; // sent nothing within the idle timeout
  std::uint64_t timed_out = 0; // a request not read or answered in time
  std::uint64_t failed = 0;    // a socket or TLS error (e.g. a bad handshake)
};

class guarded_server : public httplib::Server {
public:
  /// Throws std::runtime_error naming the option if TLS is configured
  /// and its certificate or key cannot be used.
  explicit guarded_server(const http_config& cfg);
  ~guarded_server() override;

  /// Binds and listens with the configured backlog; false if the address
  /// cannot be bound (in use, or not this machine's).
  bool bind(const std::string& host, int port);

  connection_counters counters() const;

private:
  class admission; // the task queue httplib hands accepted sockets to

  bool process_and_close_socket(socket_t sock) override;
  /// Serves the request the room read on `c`, and any whole one that
  /// followed it, then parks the connection again.
  void serve(waiting_room::guest c, waiting_list::request request);
  void close_connection(waiting_room::guest c);
  std::uint64_t open() const;

  http_config cfg_;
  std::unique_ptr<tls_context> tls_; // null: plain HTTP
  waiting_room room_;
  std::atomic<admission*> admission_{nullptr};
  int listen_fd_ = -1;
  std::atomic<std::uint64_t> admitted_{0};
  std::atomic<std::uint64_t> closed_{0}; // by a server thread
  std::atomic<std::uint64_t> rejected_{0};
  std::atomic<std::uint64_t> timed_out_{0};
  std::atomic<std::uint64_t> failed_{0}; // by a server thread
};

} // namespace dice
