#include "broadcast_bridge/keyring_file.hpp"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include "common/data_dir.hpp"

namespace dice {

std::string base64_encode(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  auto n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(&out[0]),
                           reinterpret_cast<const unsigned char*>(bytes.data()),
                           static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> base64_decode(const std::string& text) {
  if (text.empty() || text.size() % 4 != 0)
    return std::nullopt;
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && c != '=')
      return std::nullopt;
  std::string out(3 * (text.size() / 4) + 1, '\0');
  auto n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(&out[0]),
                           reinterpret_cast<const unsigned char*>(text.data()),
                           static_cast<int>(text.size()));
  if (n < 0)
    return std::nullopt;
  // EVP_DecodeBlock counts the padding's bytes as zeros: drop them.
  std::size_t len = static_cast<std::size_t>(n);
  for (auto it = text.rbegin(); it != text.rend() && *it == '='; ++it)
    --len;
  out.resize(len);
  return out;
}

std::string keyring_to_json(const keyring& ring) {
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& id : ring.ids())
    keys.push_back(base64_encode(*ring.key(id)));
  return nlohmann::json{{"primary", ring.primary_id()}, {"keys", keys}}.dump(2) + "\n";
}

std::optional<keyring> keyring_from_json(const std::string& text, std::string& error) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = "not JSON";
    return std::nullopt;
  }
  if (!j.contains("keys") || !j["keys"].is_array() || j["keys"].empty()) {
    error = "no \"keys\" (a list of base64 keys)";
    return std::nullopt;
  }
  if (!j.contains("primary") || !j["primary"].is_string()) {
    error = "no \"primary\" (a key id)";
    return std::nullopt;
  }
  keyring ring;
  std::size_t n = 0;
  for (const auto& k : j["keys"]) {
    ++n;
    auto key = k.is_string() ? base64_decode(k.get<std::string>()) : std::nullopt;
    if (!key) {
      error = "key " + std::to_string(n) + " is not base64";
      return std::nullopt;
    }
    if (auto why = ring.install(*key); !why.empty()) {
      error = "key " + std::to_string(n) + ": " + why;
      return std::nullopt;
    }
  }
  if (auto why = ring.use(j["primary"].get<std::string>()); !why.empty()) {
    error = "primary: " + why;
    return std::nullopt;
  }
  return ring;
}

bool save_keyring(const std::string& path, const keyring& ring, std::string& error) {
  try {
    replace_file(path, keyring_to_json(ring), 0600);
    return true;
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
}

std::optional<keyring> load_keyring(const std::string& path, std::string& error) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "keyring file " + path + ": cannot read it";
    return std::nullopt;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string why;
  auto ring = keyring_from_json(text, why);
  if (!ring)
    error = "keyring file " + path + " is malformed (" + why
            + "): repair or delete it (the node then starts with "
              "--cluster-key-file)";
  return ring;
}

std::string read_key_file(const std::string& path, std::string& error) {
  std::string key;
  if (path == "-") {
    key.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    std::error_code ec;
    if (!in || !std::filesystem::is_regular_file(path, ec)) {
      error = "cannot read '" + path + "'";
      return {};
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    key = buf.str();
  }
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r' || key.back() == ' '))
    key.pop_back();
  if (key.size() < keyring::min_key_bytes) {
    error = "key in '" + path + "' is shorter than "
            + std::to_string(keyring::min_key_bytes) + " bytes";
    return {};
  }
  return key;
}

} // namespace dice
