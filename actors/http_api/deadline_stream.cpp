#include "http_api/deadline_stream.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

namespace dice {

namespace {

// httplib reads a request line byte by byte: one recv() per byte would
// cost a system call each.
constexpr std::size_t read_chunk = 4096;

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage sa{};
  socklen_t len = sizeof(sa);
  auto* p = reinterpret_cast<sockaddr*>(&sa);
  if ((peer ? ::getpeername(fd, p, &len) : ::getsockname(fd, p, &len)) != 0
      || sa.ss_family != AF_INET)
    return;
  const auto* in = reinterpret_cast<const sockaddr_in*>(&sa);
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
  ip = text;
  port = ntohs(in->sin_port);
}

} // namespace

deadline_stream::deadline_stream(http_connection& conn,
                                 std::chrono::milliseconds request_timeout,
                                 std::string pending, clock::time_point started)
  : conn_(conn), timeout_(request_timeout) {
  begin_request(std::move(pending), started);
}

void deadline_stream::begin_request(std::string pending, clock::time_point started) {
  read_deadline_ = started + timeout_;
  writing_ = false;
  timed_out_ = false;
  buffer_ = std::move(pending);
  pos_ = 0;
}

std::string deadline_stream::take_buffered() {
  auto rest = buffer_.substr(pos_);
  buffer_.clear();
  pos_ = 0;
  // Bytes TLS decrypted ahead would be announced by no readiness event
  // once the connection waits in the room again.
  char chunk[read_chunk];
  while (conn_.pending()) {
    auto r = conn_.read(chunk, sizeof(chunk));
    if (r.state != http_connection::status::ok)
      break;
    rest.append(chunk, r.bytes);
  }
  return rest;
}

bool deadline_stream::wait(short events, clock::time_point deadline) const {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - clock::now()).count();
    if (left <= 0) {
      timed_out_ = true;
      return false;
    }
    pollfd p{conn_.fd(), events, 0};
    auto r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r > 0)
      return true; // ready, or an error the next call reports
    if (r < 0 && errno != EINTR)
      return false;
  }
}

bool deadline_stream::wait_for(http_connection::result r,
                               clock::time_point deadline) const {
  return wait(r.state == http_connection::status::want_write ? POLLOUT : POLLIN,
              deadline);
}

bool deadline_stream::is_readable() const {
  return pos_ < buffer_.size() || conn_.pending() || wait(POLLIN, read_deadline_);
}

bool deadline_stream::is_writable() const {
  return wait(POLLOUT, writing_ ? write_deadline_ : clock::now() + timeout_);
}

ssize_t deadline_stream::read(char* ptr, std::size_t size) {
  if (pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
    char chunk[read_chunk];
    for (;;) {
      auto r = conn_.read(chunk, sizeof(chunk));
      if (r.state == http_connection::status::ok) {
        buffer_.assign(chunk, r.bytes);
        break;
      }
      if (r.state == http_connection::status::closed)
        return 0;
      if (r.state == http_connection::status::failed || !wait_for(r, read_deadline_))
        return -1;
    }
  }
  auto n = std::min(size, buffer_.size() - pos_);
  std::memcpy(ptr, buffer_.data() + pos_, n);
  pos_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t deadline_stream::write(const char* ptr, std::size_t size) {
  if (!writing_) {
    writing_ = true;
    write_deadline_ = clock::now() + timeout_;
  }
  std::size_t done = 0;
  while (done < size) {
    auto r = conn_.write(ptr + done, size - done);
    if (r.state == http_connection::status::ok) {
      done += r.bytes;
      continue;
    }
    if (r.state == http_connection::status::closed
        || r.state == http_connection::status::failed || !wait_for(r, write_deadline_))
      return -1;
  }
  return static_cast<ssize_t>(done);
}

void deadline_stream::get_remote_ip_and_port(std::string& ip, int& port) const {
  address_of(conn_.fd(), true, ip, port);
}

void deadline_stream::get_local_ip_and_port(std::string& ip, int& port) const {
  address_of(conn_.fd(), false, ip, port);
}

} // namespace dice
