#pragma once
// A node's part in `dice test`, built once at start and shared by the
// executor's `test` kind, the HTTP routes and the tester actor. No CAF.
#include <memory>
#include <string>

#include "broadcast_bridge/keyring.hpp"
#include "tester/blob_store.hpp"
#include "tester/test_runner.hpp"
#include "tester/tester_config.hpp"
#include "tester/tester_peers.hpp"

namespace dice {

struct tester_parts {
  tester_config cfg;
  std::string node_id;
  std::string http;         // this node's HTTP HOST:PORT; empty: no API
  /// Set when the APIs speak HTTPS: the PEM file that peers' certificates
  /// are checked against on blob transfers.
  std::string tls_trust_file;
  /// The node's live keyring (the bridge replaces it on every change):
  /// blob transfers are signed with its primary and accepted under any key.
  std::shared_ptr<published_keyring> keys;

  /// This node's API base URL (https:// with TLS); `http` must be set.
  std::string api_url() const {
    return dice::api_url(http, !tls_trust_file.empty());
  }
  std::shared_ptr<blob_store> blobs;
  std::shared_ptr<tester_peers> peers;
  std::shared_ptr<test_runner> runner;
};

/// Fills in the defaults (work dir under $TMPDIR, blobs under the data
/// dir or the work dir) and builds the parts. Throws std::runtime_error
/// naming the option if a node that runs tests as root has a work dir the
/// runner's user (nobody) cannot reach.
std::shared_ptr<tester_parts> make_tester_parts(tester_config cfg, std::string node_id,
                                                std::string http,
                                                std::string tls_trust_file,
                                                std::shared_ptr<published_keyring> keys,
                                                const std::string& data_dir);

} // namespace dice
