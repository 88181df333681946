#include "http_api/bearer_token.hpp"

#include <cctype>

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace dice {

namespace {

void digest(const std::string& text, unsigned char (&out)[SHA256_DIGEST_LENGTH]) {
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), out);
}

} // namespace

bool bearer_matches(const std::string& authorization, const std::string& token) {
  static const std::string scheme = "bearer ";
  if (token.empty() || authorization.size() <= scheme.size())
    return false;
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i])
      return false;
  auto given = authorization.substr(scheme.size());
  // Equal-length digests: neither the length nor the first wrong byte of
  // the given token shows in the comparison's time.
  unsigned char a[SHA256_DIGEST_LENGTH];
  unsigned char b[SHA256_DIGEST_LENGTH];
  digest(given, a);
  digest(token, b);
  return CRYPTO_memcmp(a, b, sizeof(a)) == 0;
}

bool open_without_token(const std::string& method, const std::string& path) {
  // Blobs are for the peers, which prove the cluster key instead.
  if ((method == "GET" || method == "PUT") && path.rfind("/blobs/", 0) == 0)
    return true;
  if (method != "GET" && method != "HEAD")
    return false;
  return path == "/health" || path == "/" || path == "/ui"
         || path.rfind("/ui/", 0) == 0;
}

} // namespace dice
