// POST /evaluation JSON bodies, straight into parse_evaluation_json. Beyond
// not crashing: an accepted request names a repository, a known runner and
// split, and numbers within the configured limits; a refusal says why.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tester/evaluation_request.hpp"
#include "fuzz_require.hpp"

using dice::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  dice::tester_config cfg;
  std::string error;
  auto r = dice::parse_evaluation_json(body, cfg, error);
  if (!r) {
    dice::fuzz::refusal_renders(error);
    return 0;
  }
  require(!r->url.empty() || nlohmann::json::parse(body)["url"] == "",
          "the url is what the body said");
  require(r->runner == "pytest" || r->runner == "cmd", "a known runner");
  require(r->split == "file" || r->split == "test" || r->split == "list",
          "a known split");
  require(r->runner != "cmd" || !r->modules.empty(), "cmd comes with modules");
  require(r->timeout_s >= 1 && r->timeout_s <= cfg.max_timeout_ms / 1000,
          "the timeout is within the configured limit");
  require(r->reruns <= 10, "at most 10 reruns");
  require(r->url.size() <= 1024 && r->name.size() <= 1024,
          "strings within the limit");
  return 0;
}
