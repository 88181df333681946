#include "http_api/tls_context.hpp"

#include <memory>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdexcept>

namespace dice {

namespace {

// The reason OpenSSL gives for the last error, without its error codes.
std::string last_error() {
  auto code = ERR_peek_last_error();
  ERR_clear_error();
  if (code == 0)
    return "unknown error";
  const char* why = ERR_reason_error_string(code);
  return why != nullptr ? why : "unknown error";
}

} // namespace

tls_context::tls_context(const std::string& cert_file, const std::string& key_file)
  : ctx_(SSL_CTX_new(TLS_server_method())) {
  if (ctx_ == nullptr)
    throw std::runtime_error("TLS: " + last_error());
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> guard(ctx_, SSL_CTX_free);
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  // A client that closes without close_notify has merely hung up; and
  // writes may be partial and retried from another buffer copy, as
  // deadline_stream does on a non-blocking socket.
  SSL_CTX_set_options(ctx_, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE
                           | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_use_certificate_chain_file(ctx_, cert_file.c_str()) != 1)
    throw std::runtime_error("--http-tls-cert-file: cannot use '" + cert_file
                             + "' (" + last_error() + ")");
  auto not_its_key = [&] {
    return std::runtime_error("--http-tls-key-file: the key in '" + key_file
                              + "' does not belong to the certificate in '"
                              + cert_file + "'");
  };
  if (SSL_CTX_use_PrivateKey_file(ctx_, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      throw not_its_key();
    }
    throw std::runtime_error("--http-tls-key-file: cannot use '" + key_file
                             + "' (" + last_error() + ")");
  }
  if (SSL_CTX_check_private_key(ctx_) != 1) {
    ERR_clear_error();
    throw not_its_key();
  }
  guard.release();
}

tls_context::~tls_context() {
  SSL_CTX_free(ctx_);
}

ssl_st* tls_context::new_session() const {
  auto* s = SSL_new(ctx_);
  if (s != nullptr)
    SSL_set_accept_state(s);
  return s;
}

} // namespace dice
