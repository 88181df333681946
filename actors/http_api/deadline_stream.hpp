#pragma once
// One HTTP connection as httplib reads and writes it, with a deadline per
// request instead of httplib's timeout per read: httplib waits up to its
// read timeout for each next byte, so a client sending a byte a second
// held a server thread for as long as it liked.
#include <chrono>
#include <string>

#include <httplib.h>

#include "http_api/http_connection.hpp"

namespace dice {

class deadline_stream : public httplib::Stream {
public:
  using clock = std::chrono::steady_clock;

  /// `pending`: what the waiting room already read of the request, which
  /// began at `started`. `conn` outlives the stream.
  deadline_stream(http_connection& conn, std::chrono::milliseconds request_timeout,
                  std::string pending, clock::time_point started);

  /// The next request begins with `pending`, at `started`: it must be
  /// read whole within the request timeout of its first byte, and its
  /// answer written within the same time from the first byte written.
  void begin_request(std::string pending, clock::time_point started);
  /// Bytes read from the connection and not yet taken (a pipelined
  /// request), including any TLS still held decrypted; the stream no
  /// longer holds them.
  std::string take_buffered();
  /// The last read or write gave up at its deadline.
  bool timed_out() const { return timed_out_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, std::size_t size) override;
  ssize_t write(const char* ptr, std::size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return conn_.fd(); }

private:
  /// Waits for `events` until the deadline; false once it has passed.
  bool wait(short events, clock::time_point deadline) const;
  /// Waits as `r` asks (readable or writable); false past the deadline.
  bool wait_for(http_connection::result r, clock::time_point deadline) const;

  http_connection& conn_;
  std::chrono::milliseconds timeout_;
  clock::time_point read_deadline_;
  clock::time_point write_deadline_;
  bool writing_ = false;
  mutable bool timed_out_ = false;
  std::string buffer_;
  std::size_t pos_ = 0;
};

} // namespace dice
