#pragma once
// What every fuzz target asserts beyond not crashing: a failed property
// aborts, so libFuzzer stops and saves the input; a refusal says why and
// renders as the server renders it (bytes that are not UTF-8 replaced).
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

namespace dice::fuzz {

inline void require(bool ok, const char* what) {
  if (ok)
    return;
  std::fprintf(stderr, "fuzz property failed: %s\n", what);
  std::abort();
}

inline void refusal_renders(const std::string& error) {
  require(!error.empty(), "a refusal says why");
  (void)nlohmann::json{{"error", error}}.dump(
    -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace dice::fuzz
