#include "http_api/http_connection.hpp"

#include <cerrno>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace dice {

http_connection::http_connection(int fd, ssl_st* tls) : fd_(fd), tls_(tls) {
  // OpenSSL reads and writes the socket itself: it must never block there.
  auto flags = ::fcntl(fd_, F_GETFL, 0);
  if (flags >= 0)
    ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
  if (tls_ != nullptr)
    SSL_set_fd(tls_, fd_);
}

http_connection::~http_connection() {
  if (tls_ != nullptr) {
    if (!broken_)
      SSL_shutdown(tls_); // one non-blocking try; the socket closes anyway
    SSL_free(tls_);
  }
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
}

bool http_connection::pending() const {
  return tls_ != nullptr && SSL_pending(tls_) > 0;
}

http_connection::result http_connection::tls_outcome(int rc) {
  if (rc > 0)
    return {status::ok, static_cast<std::size_t>(rc)};
  switch (SSL_get_error(tls_, rc)) {
    case SSL_ERROR_WANT_READ:
      return {status::want_read};
    case SSL_ERROR_WANT_WRITE:
      return {status::want_write};
    case SSL_ERROR_ZERO_RETURN:
      return {status::closed};
    case SSL_ERROR_SYSCALL:
      // The peer went away without close_notify: a hang-up, not an attack.
      ERR_clear_error();
      broken_ = true;
      return {errno == 0 || errno == ECONNRESET || errno == EPIPE ? status::closed
                                                                    : status::failed};
    default:
      // The queue is per thread: left there, this error would show up in
      // the next connection's SSL_get_error on this thread.
      ERR_clear_error();
      broken_ = true;
      return {status::failed};
  }
}

http_connection::result http_connection::read(char* buf, std::size_t size) {
  if (tls_ != nullptr) {
    errno = 0;
    return tls_outcome(SSL_read(tls_, buf, static_cast<int>(size)));
  }
  auto n = ::recv(fd_, buf, size, MSG_DONTWAIT);
  if (n > 0)
    return {status::ok, static_cast<std::size_t>(n)};
  if (n == 0)
    return {status::closed};
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
    return {status::want_read};
  return {errno == ECONNRESET ? status::closed : status::failed};
}

http_connection::result http_connection::write(const char* buf, std::size_t size) {
  if (tls_ != nullptr) {
    errno = 0;
    return tls_outcome(SSL_write(tls_, buf, static_cast<int>(size)));
  }
  auto n = ::send(fd_, buf, size, MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n >= 0)
    return {status::ok, static_cast<std::size_t>(n)};
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
    return {status::want_write};
  return {errno == ECONNRESET || errno == EPIPE ? status::closed : status::failed};
}

} // namespace dice
