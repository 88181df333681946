#pragma once
// The options of a POST /evaluation, checked: plain functions over the
// body or its query parameters, so bad input is refused with a message
// and the parser is fuzzed on its own (fuzz/).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/time.hpp"
#include "tester/tester_config.hpp"

namespace dice {

/// A module's time limit when the evaluation names none.
constexpr millis tester_default_timeout_ms = 600'000;
/// Most modules (tasks) one evaluation is split into.
constexpr std::size_t tester_max_modules = 10'000;

struct evaluation_request {
  std::string url;       // git repository to clone (JSON body); empty: upload
  std::string name;      // the project's name, for the user and the memory
  std::string runner = "pytest";
  std::string split = "file";  // file, test; "list" when modules are given
  std::uint32_t timeout_s = 0;
  std::uint32_t reruns = 0;
  std::vector<std::string> modules; // given: one task each (cmd needs them)
};

/// The options of a POST /evaluation: a JSON object whose values may also
/// be strings of numbers (query parameters arrive so). nullopt with
/// `error` set for an unknown field, runner or split, or a number out of
/// range.
std::optional<evaluation_request> parse_evaluation_request(const nlohmann::json& j,
                                                           const tester_config& cfg,
                                                           std::string& error);

/// A JSON body of POST /evaluation: an object with "url" (a git repository
/// to clone) and the options parse_evaluation_request takes. nullopt with
/// `error` set when it is not JSON, has no url, or an option is bad.
std::optional<evaluation_request> parse_evaluation_json(const std::string& body,
                                                        const tester_config& cfg,
                                                        std::string& error);

} // namespace dice
