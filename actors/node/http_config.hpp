#pragma once
// How the HTTP API serves its clients: threads, connection limits and
// timeouts against slow or idle clients, the bearer token and TLS.
#include <cstddef>
#include <string>

#include "common/defaults.hpp"

namespace dice {

struct http_config {
  std::size_t threads = defaults::http_threads;
  std::size_t max_connections = defaults::http_max_connections;
  millis request_timeout_ms = defaults::http_request_timeout_ms;
  millis idle_timeout_ms = defaults::http_idle_timeout_ms;
  int listen_backlog = defaults::http_listen_backlog;
  millis submit_accept_ms = defaults::http_submit_accept_ms;
  millis submit_replicated_ms = defaults::http_submit_replicated_ms;
  /// Every request but GET /health must carry `Authorization: Bearer
  /// TOKEN`; empty: no token is asked for (loopback only, see problem()).
  std::string token;
  /// POST /tasks of a kind (or shell program) no live member runs: accepted
  /// to wait for a runner to join, instead of refused with 400.
  bool wait_for_runner = false;
  /// PEM files of the API's certificate (with its chain) and private key:
  /// both set, the API, the dashboard and blob transfers speak HTTPS only.
  std::string tls_cert_file;
  std::string tls_key_file;
  /// PEM file of the certificates that sign the other nodes' API
  /// certificates, to verify them on blob transfers; empty: the node's
  /// own certificate is the one trusted (one certificate for the cluster).
  std::string tls_ca_file;

  bool tls() const { return !tls_cert_file.empty(); }
  /// What this node trusts when it calls another node's API over TLS.
  const std::string& tls_trust_file() const {
    return tls_ca_file.empty() ? tls_cert_file : tls_ca_file;
  }

  /// Empty when the API can run on `host`, otherwise a one-line reason.
  std::string problem(const std::string& host) const;
};

/// The token in `path` with trailing whitespace and newlines cut; throws
/// std::runtime_error with a one-line reason, naming `option`, if it cannot
/// be read, is shorter than defaults::http_token_min_bytes or holds bytes
/// a header line cannot carry.
std::string read_http_token_file(const std::string& path,
                                 const std::string& option = "--http-token-file");

} // namespace dice
