#pragma once
// Nodes fetch and copy project blobs over HTTP (GET and PUT /blobs/SHA),
// outside the datagram path, authenticated like datagrams: with an
// HMAC-SHA256 of the cluster key over the method and the blob's name, in
// the X-Dice-Blob-Auth header. Without a cluster key blobs are as open as
// the datagrams are.
#include <string>

#include "broadcast_bridge/keyring.hpp"

namespace dice {

constexpr const char* blob_auth_header = "X-Dice-Blob-Auth";

/// Hex HMAC of "METHOD /blobs/SHA" under `key`; empty when `key` is.
std::string blob_auth(const std::string& key, const std::string& method,
                      const std::string& sha);

/// Whether `given` is the tag of (method, sha) under `key` (constant time).
bool blob_auth_ok(const std::string& key, const std::string& method,
                  const std::string& sha, const std::string& given);

/// Whether `given` is the tag of (method, sha) under any key of `keys`
/// (the sender signs with its primary, which may be a key this node holds
/// but does not sign with, during a rotation); an empty keyring accepts.
bool blob_auth_ok(const keyring& keys, const std::string& method,
                  const std::string& sha, const std::string& given);

} // namespace dice
