#pragma once
// The HTTP API's TLS settings, loaded once at start from the certificate
// and key files (--http-tls-cert-file, --http-tls-key-file): every accepted
// connection gets its own session from here.
#include <string>

struct ssl_ctx_st;
struct ssl_st;

namespace dice {

class tls_context {
public:
  /// Throws std::runtime_error with a one-line reason naming the option
  /// when a file cannot be read or parsed, or the key does not belong to
  /// the certificate.
  tls_context(const std::string& cert_file, const std::string& key_file);
  ~tls_context();
  tls_context(const tls_context&) = delete;
  tls_context& operator=(const tls_context&) = delete;

  /// A server session for one connection (the handshake happens in its
  /// first reads); null if OpenSSL has no memory left.
  ssl_st* new_session() const;

private:
  ssl_ctx_st* ctx_;
};

} // namespace dice
