#pragma once
// HMAC-SHA256 from OpenSSL's libcrypto: the cluster key authenticates every
// envelope. Hand-rolled crypto has no place here.
#include <string>

namespace dice {

/// The 32-byte HMAC-SHA256 of `data` under `key`.
std::string hmac_sha256(const std::string& key, const std::string& data);

/// Constant-time comparison, so tag checks leak no timing.
bool tags_equal(const std::string& a, const std::string& b);

} // namespace dice
