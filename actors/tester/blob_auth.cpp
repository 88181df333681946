#include "tester/blob_auth.hpp"

#include <cstdio>

#include "broadcast_bridge/hmac.hpp"

namespace dice {

std::string blob_auth(const std::string& key, const std::string& method,
                      const std::string& sha) {
  if (key.empty())
    return {};
  auto tag = hmac_sha256(key, method + " /blobs/" + sha);
  std::string hex(tag.size() * 2, '0');
  for (std::size_t i = 0; i < tag.size(); ++i)
    std::snprintf(&hex[i * 2], 3, "%02x", static_cast<unsigned char>(tag[i]));
  return hex;
}

bool blob_auth_ok(const std::string& key, const std::string& method,
                  const std::string& sha, const std::string& given) {
  return key.empty() || tags_equal(blob_auth(key, method, sha), given);
}

bool blob_auth_ok(const keyring& keys, const std::string& method,
                  const std::string& sha, const std::string& given) {
  if (keys.empty())
    return true;
  bool ok = false;
  for (const auto& id : keys.ids()) // every key, so the time tells nothing
    ok = blob_auth_ok(*keys.key(id), method, sha, given) || ok;
  return ok;
}

} // namespace dice
