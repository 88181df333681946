#include "broadcast_bridge/keyring.hpp"

#include <algorithm>
#include <cstdio>

#include "broadcast_bridge/hmac.hpp"

namespace dice {

namespace {

constexpr std::size_t id_size = 4;

bool is_hex_id(const std::string& id) {
  return id.size() == 2 * id_size
         && std::all_of(id.begin(), id.end(), [](char c) {
              return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
            });
}

} // namespace

keyring::keyring(std::string key) {
  if (key.empty())
    return;
  primary_ = id_of(key);
  keys_.push_back({primary_, std::move(key)});
}

std::string keyring::id_of(const std::string& key) {
  return id_hex(hmac_sha256(key, "dice key id").substr(0, id_size));
}

std::string keyring::id_hex(const std::string& bytes) {
  std::string hex(bytes.size() * 2, '0');
  for (std::size_t i = 0; i < bytes.size(); ++i)
    std::snprintf(&hex[i * 2], 3, "%02x", static_cast<unsigned char>(bytes[i]));
  return hex;
}

std::string keyring::id_bytes(const std::string& hex_id) {
  if (!is_hex_id(hex_id))
    return {};
  std::string out(id_size, '\0');
  for (std::size_t i = 0; i < id_size; ++i)
    out[i] = static_cast<char>(std::stoi(hex_id.substr(2 * i, 2), nullptr, 16));
  return out;
}

const keyring::entry* keyring::find(const std::string& id) const {
  for (const auto& e : keys_)
    if (e.id == id)
      return &e;
  return nullptr;
}

std::string keyring::install(const std::string& key) {
  if (key.size() < min_key_bytes)
    return "a cluster key must be at least " + std::to_string(min_key_bytes)
           + " bytes (this one has " + std::to_string(key.size()) + ")";
  auto id = id_of(key);
  if (const auto* e = find(id)) {
    if (e->key == key)
      return {}; // already held: installing twice changes nothing
    return "another key with id " + id + " is held (ids are 4 bytes of a "
           "hash: make a new key)";
  }
  if (keys_.size() >= max_keys)
    return "the keyring holds " + std::to_string(max_keys)
           + " keys already: remove one first";
  keys_.push_back({id, key});
  if (primary_.empty())
    primary_ = id;
  return {};
}

std::string keyring::use(const std::string& id) {
  if (!find(id))
    return "no key " + id + " in the keyring: install it first";
  primary_ = id;
  return {};
}

std::string keyring::remove(const std::string& id) {
  if (!find(id))
    return "no key " + id + " in the keyring";
  if (id == primary_)
    return "key " + id + " is the primary (it signs): use another key first";
  keys_.erase(std::remove_if(keys_.begin(), keys_.end(),
                             [&](const entry& e) { return e.id == id; }),
              keys_.end());
  return {};
}

const std::string& keyring::primary_key() const {
  static const std::string none;
  const auto* e = find(primary_);
  return e ? e->key : none;
}

std::vector<std::string> keyring::ids() const {
  std::vector<std::string> out;
  for (const auto& e : keys_)
    out.push_back(e.id);
  return out;
}

const std::string* keyring::key(const std::string& id) const {
  const auto* e = find(id);
  return e ? &e->key : nullptr;
}

keyring::signature keyring::sign(const std::string& data) const {
  const auto* e = find(primary_);
  if (!e)
    return {};
  return {id_bytes(e->id), hmac_sha256(e->key, data)};
}

keyring::verdict keyring::verify(const std::string& id_bytes,
                                 const std::string& data,
                                 const std::string& tag) const {
  verdict v;
  if (keys_.empty()) {
    v.ok = true;
    return v;
  }
  if (!id_bytes.empty()) {
    v.id = id_bytes.size() == id_size ? id_hex(id_bytes) : "invalid";
    const auto* e = find(v.id);
    if (!e) {
      v.unknown_id = true;
      return v;
    }
    v.ok = tags_equal(tag, hmac_sha256(e->key, data));
    return v;
  }
  // An older sender names no key: the primary first, it is the likeliest.
  if (const auto* p = find(primary_); p && tags_equal(tag, hmac_sha256(p->key, data))) {
    v.ok = true;
    v.id = p->id;
    return v;
  }
  for (const auto& e : keys_)
    if (e.id != primary_ && tags_equal(tag, hmac_sha256(e.key, data))) {
      v.ok = true;
      v.id = e.id;
      return v;
    }
  return v;
}

} // namespace dice
