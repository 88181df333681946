#include "http_api/key_json.hpp"

#include <algorithm>

#include "broadcast_bridge/keyring_file.hpp"

namespace dice {

bool is_key_id(const std::string& id) {
  return id.size() == 8 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

nlohmann::json keys_json(const std::string& self_id, const keyring_view& v) {
  auto keys = nlohmann::json::array();
  for (const auto& id : v.ids) {
    key_traffic t;
    if (auto it = v.by_key.find(id); it != v.by_key.end())
      t = it->second;
    keys.push_back({{"id", id}, {"primary", id == v.primary},
                    {"sent", t.sent}, {"received", t.received}});
  }
  auto unknown = nlohmann::json::array();
  for (const auto& [id, n] : v.unknown_key_ids)
    unknown.push_back({{"id", id}, {"dropped", n}});
  return {{"self", self_id},
          {"primary", v.primary.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.primary)},
          {"persisted", v.persisted},
          {"keys", std::move(keys)},
          {"unknown", std::move(unknown)}};
}

namespace {

// The string field `name` of a JSON object body.
std::optional<std::string> field(const std::string& body, const char* name,
                                 std::string& error) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = std::string("the body must be a JSON object {\"") + name + "\": …}";
    return std::nullopt;
  }
  if (!j.contains(name) || !j[name].is_string()) {
    error = std::string("\"") + name + "\" (a string) is missing";
    return std::nullopt;
  }
  return j[name].get<std::string>();
}

} // namespace

std::optional<std::string> parse_key_install(const std::string& body, std::string& error) {
  auto text = field(body, "key", error);
  if (!text)
    return std::nullopt;
  auto key = base64_decode(*text);
  if (!key) {
    error = "\"key\" must be the key's bytes in base64";
    return std::nullopt;
  }
  if (key->size() < keyring::min_key_bytes) {
    error = "a cluster key must be at least " + std::to_string(keyring::min_key_bytes)
            + " bytes (this one has " + std::to_string(key->size()) + ")";
    return std::nullopt;
  }
  return key;
}

std::optional<std::string> parse_key_use(const std::string& body, std::string& error) {
  auto id = field(body, "id", error);
  if (!id)
    return std::nullopt;
  if (!is_key_id(*id)) {
    error = "\"id\" must be a key id: 8 hex digits, as GET /keys lists them";
    return std::nullopt;
  }
  return id;
}

} // namespace dice
