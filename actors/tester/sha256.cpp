#include "tester/sha256.hpp"

#include <cstdio>
#include <fstream>
#include <memory>

#include <openssl/evp.h>

namespace dice {

namespace {

struct digest {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(),
                                                              EVP_MD_CTX_free};
  digest() { EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr); }
  void add(const char* data, std::size_t n) { EVP_DigestUpdate(ctx.get(), data, n); }
  std::string hex() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx.get(), out, &len);
    std::string text(len * 2, '0');
    for (unsigned int i = 0; i < len; ++i)
      std::snprintf(&text[i * 2], 3, "%02x", out[i]);
    return text;
  }
};

} // namespace

std::string sha256_hex(const std::string& bytes) {
  digest d;
  d.add(bytes.data(), bytes.size());
  return d.hex();
}

std::string sha256_file_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {};
  digest d;
  char buf[64 * 1024];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0)
    d.add(buf, static_cast<std::size_t>(in.gcount()));
  return in.bad() ? std::string{} : d.hex();
}

bool is_blob_name(const std::string& name) {
  return name.size() == 64
         && name.find_first_not_of("0123456789abcdef") == std::string::npos;
}

} // namespace dice
