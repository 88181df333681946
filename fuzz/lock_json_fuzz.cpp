// POST /locks/NAME bodies, straight into parse_lock_request. Beyond not
// crashing: what it accepts is within the documented ranges, and a refusal
// says why in a message the server can render.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "http_api/lock_json.hpp"
#include "fuzz_require.hpp"

using dice::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  std::string error;
  auto r = dice::parse_lock_request(body, error);
  if (!r) {
    dice::fuzz::refusal_renders(error);
    return 0;
  }
  require(r->token.size() <= 128, "the token is at most 128 bytes");
  require(r->wait_ms >= 0 && r->wait_ms <= dice::max_lock_wait_ms,
          "wait_ms is within range");
  require(r->lease_ms >= dice::min_lock_lease_ms
            && r->lease_ms <= dice::max_lock_lease_ms,
          "lease_ms is within range");
  return 0;
}
