#pragma once
// The keyring kept in a node's data dir (`<data-dir>/keyring`), so a key
// installed or made primary at runtime outlives a restart: a small JSON
// file, {"primary": ID, "keys": [BASE64, ...]}, mode 0600, replaced
// atomically (temporary file, fsync, rename) on every change. And the raw
// key files of --cluster-key-file and `dice keys install`.
#include <optional>
#include <string>

#include "broadcast_bridge/keyring.hpp"

namespace dice {

/// The keyring as the file holds it.
std::string keyring_to_json(const keyring& ring);
/// nullopt, with `error` set, if `text` is no keyring (bad JSON, a key
/// that is not base64 or too short, a primary not among the keys).
std::optional<keyring> keyring_from_json(const std::string& text, std::string& error);

/// Writes `ring` to `path` atomically with mode 0600; false with `error`.
bool save_keyring(const std::string& path, const keyring& ring, std::string& error);

/// The keyring in `path`: nullopt and `error` empty when there is no such
/// file; nullopt and `error` set (naming the file) when it cannot be read
/// or is malformed.
std::optional<keyring> load_keyring(const std::string& path, std::string& error);

/// A raw key file: its bytes, trailing newlines, carriage returns and
/// spaces stripped; "" with `error` set if it cannot be read or the key is
/// shorter than keyring::min_key_bytes. "-" reads standard input.
std::string read_key_file(const std::string& path, std::string& error);

/// Base64 (RFC 4648, with padding) by OpenSSL; decode returns nullopt for
/// anything else.
std::string base64_encode(const std::string& bytes);
std::optional<std::string> base64_decode(const std::string& text);

} // namespace dice
