#pragma once
// How the HTTP API serves its clients: threads, connection limits and
// timeouts against slow or idle clients, the bearer token and TLS.
#include <cstddef>
#include <string>

#include "common/time.hpp"

namespace dice {

/// A bearer token shorter than this is refused as guessable.
constexpr std::size_t http_token_min_bytes = 16;

struct http_config {
  /// Requests served at once. A connection holds a thread only once its
  /// request has arrived whole (waiting_room reads it), and a handler waits
  /// at most 5 s for the actors, or a lock request its wait_ms (at most
  /// 10 s), so these bound the requests in progress, not the clients. Each
  /// thread that has served keeps about 0.3 MiB the node cannot return
  /// (the entry node of bench/retention: 28 MiB after 300,000 tasks with
  /// 16 threads, 24 with 4); 8 leave room for lock waits on 2 cores.
  std::size_t threads = 8;
  /// Connections open at once: waiting for (the rest of) a request, queued
  /// for a thread or being served. A new connection beyond it first evicts
  /// the connection that has waited longest in the waiting room; if every
  /// one is being served it is answered 503 and closed at once. Bounds the node's
  /// file descriptors under a burst without queueing /health behind it.
  std::size_t max_connections = 1024;
  /// A request must arrive whole (headers and body) within this of its first
  /// byte, and its answer must be taken within this: a client that trickles
  /// bytes is cut then, so it cannot hold a buffer (or, for a body read on
  /// a server thread, a thread) for ever. 256 KiB, the largest body,
  /// takes 2 s at 1 Mbit/s.
  millis request_timeout_ms = 5000;
  /// A connection that sends nothing (a new one, or one kept alive between
  /// requests) is closed after this. It waits without a thread, so an idle
  /// connection costs a file descriptor, no more.
  millis idle_timeout_ms = 5000;
  /// Connections the kernel queues before they are accepted. httplib listens
  /// with a backlog of 5: a burst of connections overflowed it, the kernel
  /// dropped their SYNs and clients retried after 1 s, 3 s, ..., /health
  /// included. The kernel caps it at net.core.somaxconn.
  int listen_backlog = 1024;
  /// How long POST /tasks lets the queue take a submit. A submit the queue
  /// reaches later is refused whole: the client has had its 503 by then and
  /// must not find the tasks enqueued anyway (issue 17: 45,000 such tasks).
  millis submit_accept_ms = 2000;
  /// How long POST /tasks waits for another replica to hold every task:
  /// 201 if it does in time, else 202 with every id (the tasks are enqueued
  /// and will be replicated; the submit need not be repeated).
  millis submit_replicated_ms = 5000;
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
/// be read, is shorter than http_token_min_bytes or holds bytes
/// a header line cannot carry.
std::string read_http_token_file(const std::string& path,
                                 const std::string& option = "--http-token-file");

} // namespace dice
