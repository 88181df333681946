// The query parameters of GET /tasks: `state` (parse_state) and `ids`
// (parse_ids), straight from the fuzzer's bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "http_api/task_json.hpp"
#include "fuzz_require.hpp"

using dice::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (auto state = dice::parse_state(text))
    require(state->name == text, "a state parses to its own name");

  std::string error;
  auto ids = dice::parse_ids(text, error);
  if (!ids) {
    require(!error.empty(), "a refusal says why");
    return 0;
  }
  require(!ids->empty() && ids->size() <= dice::max_query_ids,
          "between one and max_query_ids ids");
  // The ids, joined again, are the list without its empty items.
  std::string joined, expected;
  for (const auto& id : *ids) {
    require(!id.empty() && id.find(',') == std::string::npos,
            "an id is a non-empty item between commas");
    joined += (joined.empty() ? "" : ",") + id;
  }
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] != ',' || (!expected.empty() && expected.back() != ','))
      expected += text[i];
  while (!expected.empty() && expected.back() == ',')
    expected.pop_back();
  require(joined == expected, "no id is lost or changed");
  return 0;
}
