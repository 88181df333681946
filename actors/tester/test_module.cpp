#include "tester/test_module.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dice {

std::string encode_module_task(const module_task& t) {
  return json{{"eval", t.eval},       {"blob", t.blob},
              {"module", t.module},   {"runner", t.runner},
              {"timeout_s", t.timeout_s}, {"reruns", t.reruns},
              {"sources", t.sources}}
    .dump();
}

std::optional<module_task> decode_module_task(const std::string& payload,
                                              std::string& error) {
  auto j = json::parse(payload, nullptr, false);
  try {
    if (j.is_discarded() || !j.is_object())
      throw std::runtime_error("not a JSON object");
    module_task t;
    t.eval = j.at("eval").get<std::string>();
    t.blob = j.at("blob").get<std::string>();
    t.module = j.at("module").get<std::string>();
    t.runner = j.at("runner").get<std::string>();
    t.timeout_s = j.at("timeout_s").get<std::uint32_t>();
    t.reruns = j.value("reruns", 0u);
    t.sources = j.value("sources", std::vector<std::string>{});
    if (t.runner != "pytest" && t.runner != "cmd" && t.runner != "ctest")
      throw std::runtime_error("runner must be pytest, ctest or cmd");
    return t;
  } catch (const std::exception& e) {
    error = std::string("test: bad payload: ") + e.what();
    return std::nullopt;
  }
}

void outcome_counts::add(const std::string& outcome, bool was_flaky) {
  if (outcome == "passed")
    ++passed;
  else if (outcome == "failed")
    ++failed;
  else if (outcome == "skipped")
    ++skipped;
  else
    ++errors;
  if (was_flaky)
    ++flaky;
}

void outcome_counts::add(const outcome_counts& o) {
  passed += o.passed;
  failed += o.failed;
  skipped += o.skipped;
  errors += o.errors;
  flaky += o.flaky;
}

json test_case_json(const test_case_result& t) {
  json e{{"id", t.id}, {"outcome", t.outcome},
         {"ms", static_cast<std::int64_t>(t.seconds * 1000)}};
  if (!t.output.empty())
    e["output"] = t.output;
  if (t.flaky)
    e["flaky"] = true;
  return e;
}

namespace {

json counts_json(const outcome_counts& c) {
  return {{"passed", c.passed}, {"failed", c.failed}, {"skipped", c.skipped},
          {"errors", c.errors}, {"flaky", c.flaky}};
}

json result_json(const module_result& r) {
  auto tests = json::array();
  for (auto& t : r.tests)
    tests.push_back(test_case_json(t));
  json j{{"node", r.node}, {"duration_ms", r.duration_ms},
         {"counts", counts_json(r.counts)}, {"tests", std::move(tests)}};
  if (!r.error.empty())
    j["error"] = r.error;
  if (!r.output.empty())
    j["output"] = r.output;
  return j;
}

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

std::string encode_module_result(module_result r, std::size_t max_bytes) {
  auto text = dump(result_json(r));
  // Cut in steps until it fits: outputs shorter, then passed and skipped
  // entries folded into the counts, then every output, then entries.
  for (std::size_t cap = 1024; text.size() > max_bytes && cap >= 64; cap /= 4) {
    r.output = tail_of(r.output, cap * 2);
    for (auto& t : r.tests)
      t.output = tail_of(t.output, cap);
    text = dump(result_json(r));
  }
  if (text.size() > max_bytes) {
    r.tests.erase(std::remove_if(r.tests.begin(), r.tests.end(),
                                 [](const test_case_result& t) {
                                   return !t.flaky && (t.outcome == "passed"
                                                       || t.outcome == "skipped");
                                 }),
                  r.tests.end());
    text = dump(result_json(r));
  }
  while (text.size() > max_bytes && !r.tests.empty()) {
    r.tests.resize(r.tests.size() / 2);
    for (auto& t : r.tests)
      t.output.clear();
    text = dump(result_json(r));
  }
  return text;
}

module_result decode_module_result(const std::string& text) {
  module_result r;
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    r.error = "unreadable module result";
    return r;
  }
  r.node = j.value("node", "");
  r.error = j.value("error", "");
  r.output = j.value("output", "");
  r.duration_ms = j.value("duration_ms", std::int64_t{0});
  auto c = j.value("counts", json::object());
  r.counts.passed = c.value("passed", 0ull);
  r.counts.failed = c.value("failed", 0ull);
  r.counts.skipped = c.value("skipped", 0ull);
  r.counts.errors = c.value("errors", 0ull);
  r.counts.flaky = c.value("flaky", 0ull);
  for (auto& t : j.value("tests", json::array())) {
    test_case_result tc;
    tc.id = t.value("id", "");
    tc.outcome = t.value("outcome", "");
    tc.seconds = static_cast<double>(t.value("ms", std::int64_t{0})) / 1000.0;
    tc.output = t.value("output", "");
    tc.flaky = t.value("flaky", false);
    r.tests.push_back(std::move(tc));
  }
  return r;
}

std::vector<std::string> discover_pytest_files(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  auto skip_dir = [](const std::string& name) {
    return name.empty() || name[0] == '.' || name == "build" || name == "dist"
           || name == "venv" || name == "node_modules" || name == "__pycache__"
           || name == "CVS" || name == "_darcs" || name == "{arch}"
           || (name.size() > 4 && name.compare(name.size() - 4, 4, ".egg") == 0);
  };
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    auto name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (skip_dir(name))
        it.disable_recursion_pending();
      continue;
    }
    bool py = name.size() > 3 && name.compare(name.size() - 3, 3, ".py") == 0;
    if (py && it->is_regular_file(ec)
        && (name.rfind("test_", 0) == 0
            || (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.py") == 0)))
      out.push_back(fs::relative(it->path(), root).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> parse_collected_ids(const std::string& output) {
  std::vector<std::string> ids;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    if (line.find("::") != std::string::npos && line.find(' ') == std::string::npos)
      ids.push_back(line);
  }
  return ids;
}

std::vector<std::string> parse_ctest_names(const std::string& json_text,
                                           std::string& error) {
  std::vector<std::string> names;
  // Its stderr shares the stream: the list starts at the first brace.
  auto at = json_text.find('{');
  auto j = at == std::string::npos ? nlohmann::json()
                                   : nlohmann::json::parse(json_text.substr(at), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tests") || !j["tests"].is_array()) {
    error = "ctest --show-only=json-v1 did not print a test list";
    return names;
  }
  for (auto& t : j["tests"])
    if (t.is_object() && t.contains("name") && t["name"].is_string())
      names.push_back(t["name"].get<std::string>());
  return names;
}

std::string ctest_exact_regex(const std::string& name) {
  std::string re = "^";
  for (char c : name) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos)
      re += '\\';
    re += c;
  }
  return re + "$";
}

} // namespace dice
