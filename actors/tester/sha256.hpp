#pragma once
// SHA-256 from OpenSSL's libcrypto: a project blob is named by the hash of
// its bytes, so a node can check what it fetched from a peer.
#include <string>

namespace dice {

/// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(const std::string& bytes);

/// Lower-case hex SHA-256 of a file's content; empty if it cannot be read.
std::string sha256_file_hex(const std::string& path);

/// True for 64 lower-case hex digits: the only names a blob may have, so a
/// name from a request never walks out of the blob directory.
bool is_blob_name(const std::string& name);

} // namespace dice
