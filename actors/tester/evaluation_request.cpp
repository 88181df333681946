#include "tester/evaluation_request.hpp"

#include <set>

#include "common/defaults.hpp"

using nlohmann::json;

namespace dice {

namespace {

/// A whole number from a JSON number or a string of digits.
bool whole(const json& v, std::uint64_t max, std::uint64_t& out) {
  if (v.is_number_unsigned()) {
    out = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    if (v.get<std::int64_t>() < 0)
      return false;
    out = static_cast<std::uint64_t>(v.get<std::int64_t>());
  } else if (v.is_string()) {
    auto s = v.get<std::string>();
    if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out = std::stoull(s);
  } else {
    return false;
  }
  return out <= max;
}

} // namespace

std::optional<evaluation_request> parse_evaluation_request(const json& j,
                                                           const tester_config& cfg,
                                                           std::string& error) {
  if (!j.is_object()) {
    error = "the evaluation's options must be a JSON object";
    return std::nullopt;
  }
  static const std::set<std::string> known{"url", "name", "runner", "split",
                                           "timeout", "reruns", "modules"};
  evaluation_request r;
  r.timeout_s = static_cast<std::uint32_t>(tester_default_timeout_ms / 1000);
  for (auto& [key, v] : j.items()) {
    if (!known.count(key)) {
      error = "unknown field '" + key + "' (url, name, runner, split, timeout, "
              "reruns, modules)";
      return std::nullopt;
    }
    std::uint64_t n = 0;
    if (key == "timeout") {
      auto max_s = static_cast<std::uint64_t>(cfg.max_timeout_ms / 1000);
      if (!whole(v, max_s, n) || n == 0) {
        error = "timeout must be seconds from 1 to " + std::to_string(max_s);
        return std::nullopt;
      }
      r.timeout_s = static_cast<std::uint32_t>(n);
    } else if (key == "reruns") {
      if (!whole(v, 10, n)) {
        error = "reruns must be from 0 to 10";
        return std::nullopt;
      }
      r.reruns = static_cast<std::uint32_t>(n);
    } else if (key == "modules") {
      auto list = v;
      if (v.is_string()) // a query parameter: a JSON array in a string
        list = json::parse(v.get<std::string>(), nullptr, false);
      if (!list.is_array() || list.empty() || list.size() > tester_max_modules) {
        error = "modules must be a non-empty array of at most "
                + std::to_string(tester_max_modules) + " strings";
        return std::nullopt;
      }
      for (auto& m : list) {
        if (!m.is_string() || m.get<std::string>().empty()
            || m.get<std::string>().size() > 1024) {
          error = "every module must be a string of 1 to 1024 bytes";
          return std::nullopt;
        }
        r.modules.push_back(m.get<std::string>());
      }
    } else if (!v.is_string()) {
      error = key + " must be a string";
      return std::nullopt;
    } else {
      auto s = v.get<std::string>();
      if (s.size() > 1024) {
        error = key + " is longer than 1024 bytes";
        return std::nullopt;
      }
      (key == "url" ? r.url : key == "name" ? r.name : key == "runner" ? r.runner : r.split) = s;
    }
  }
  if (r.runner != "pytest" && r.runner != "ctest" && r.runner != "cmd") {
    error = "runner must be pytest, ctest or cmd";
    return std::nullopt;
  }
  if (r.split != "file" && r.split != "test") {
    error = "split must be file or test";
    return std::nullopt;
  }
  if (r.runner == "ctest" && r.split != "test") {
    error = "runner ctest runs a task per test: split must be test";
    return std::nullopt;
  }
  if (r.runner == "cmd" && r.modules.empty()) {
    error = "runner cmd needs modules: the commands to run, one task each";
    return std::nullopt;
  }
  if (!r.modules.empty())
    r.split = "list";
  return r;
}

std::optional<evaluation_request> parse_evaluation_json(const std::string& body,
                                                        const tester_config& cfg,
                                                        std::string& error) {
  auto opts = json::parse(body, nullptr, false);
  if (opts.is_discarded()) {
    error = "body is not JSON";
    return std::nullopt;
  }
  if (!opts.is_object() || !opts.contains("url")) {
    error = "a JSON body needs \"url\": a git repository to clone";
    return std::nullopt;
  }
  return parse_evaluation_request(opts, cfg, error);
}

} // namespace dice
