#pragma once
// The JSON of the keyring routes (GET/POST /keys, POST /keys/use,
// DELETE /keys/ID), from plain values so they are tested without a server.
// Key bytes travel only into a node (POST /keys), never out of it.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "broadcast_bridge/keyring.hpp"

namespace dice {

/// GET /keys: {"self", "primary", "persisted", "keys": [{"id", "primary",
/// "sent", "received"}], "unknown": [{"id", "dropped"}]}.
nlohmann::json keys_json(const std::string& self_id, const keyring_view& v);

/// POST /keys {"key": BASE64}: the key's bytes, or nullopt with `error`.
std::optional<std::string> parse_key_install(const std::string& body, std::string& error);

/// POST /keys/use {"id": ID}: the id (8 lowercase hex digits), or nullopt
/// with `error`.
std::optional<std::string> parse_key_use(const std::string& body, std::string& error);

/// Whether `id` looks like a key id (8 lowercase hex digits).
bool is_key_id(const std::string& id);

} // namespace dice
