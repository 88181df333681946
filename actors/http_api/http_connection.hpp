#pragma once
// One accepted HTTP connection, plain or TLS, read and written without
// blocking: the waiting room and a server thread's deadline_stream each
// wait for readiness themselves and then call read() or write(). With TLS
// the handshake happens inside the first reads, so a client that never
// finishes it is closed by the room's idle timeout like a silent one.
#include <cstddef>
#include <memory>

struct ssl_st;

namespace dice {

class http_connection {
public:
  enum class status {
    ok,         // `bytes` moved
    want_read,  // wait until the socket is readable, then call again
    want_write, // wait until the socket is writable, then call again
    closed,     // the peer ended the connection
    failed,     // a socket error, or a TLS error (bad handshake, bad record)
  };
  struct result {
    status state;
    std::size_t bytes = 0;
  };

  /// Owns `fd` (made non-blocking) and `tls` (null: plain TCP).
  http_connection(int fd, ssl_st* tls);
  ~http_connection(); // closes the socket (TLS: sends close_notify first)
  http_connection(const http_connection&) = delete;
  http_connection& operator=(const http_connection&) = delete;

  int fd() const { return fd_; }
  bool tls() const { return tls_ != nullptr; }
  /// TLS holds bytes already decrypted that no readiness event announces:
  /// read them before waiting on the socket.
  bool pending() const;

  result read(char* buf, std::size_t size);
  result write(const char* buf, std::size_t size);

private:
  result tls_outcome(int rc);

  int fd_;
  ssl_st* tls_;
  bool broken_ = false; // a TLS error: no close_notify on closing
};

} // namespace dice
