#include "tester/test_module.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dice {

std::string encode_module_task(const module_task& t) {
  json j{{"eval", t.eval},       {"blob", t.blob},
              {"module", t.module},   {"runner", t.runner},
              {"timeout_s", t.timeout_s}, {"reruns", t.reruns},
              {"sources", t.sources}};
  if (!t.with.empty())
    j["with"] = t.with;
  return j.dump();
}

std::vector<std::string> module_task::modules() const {
  std::vector<std::string> all{module};
  all.insert(all.end(), with.begin(), with.end());
  return all;
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
    t.with = j.value("with", std::vector<std::string>{});
    if (!t.with.empty() && t.runner != "pytest")
      throw std::runtime_error("only pytest runs several modules in one task");
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
  else if (outcome == "xfailed")
    ++xfailed;
  else
    ++errors;
  if (was_flaky)
    ++flaky;
}

void outcome_counts::add(const outcome_counts& o) {
  passed += o.passed;
  failed += o.failed;
  skipped += o.skipped;
  xfailed += o.xfailed;
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
  return {{"passed", c.passed},   {"failed", c.failed}, {"skipped", c.skipped},
          {"xfailed", c.xfailed}, {"errors", c.errors}, {"flaky", c.flaky}};
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
  if (!r.shares.empty()) {
    json shares = json::object();
    for (const auto& [module, part] : r.shares) {
      json one{{"ms", part.ms}, {"counts", counts_json(part.counts)}};
      if (!part.error.empty())
        one["error"] = part.error;
      shares[module] = std::move(one);
    }
    j["shares"] = std::move(shares);
  }
  return j;
}

outcome_counts counts_of(const json& c) {
  outcome_counts out;
  out.passed = c.value("passed", 0ull);
  out.failed = c.value("failed", 0ull);
  out.skipped = c.value("skipped", 0ull);
  out.xfailed = c.value("xfailed", 0ull);
  out.errors = c.value("errors", 0ull);
  out.flaky = c.value("flaky", 0ull);
  return out;
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
                                                       || t.outcome == "skipped"
                                                       || t.outcome == "xfailed");
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
  // Any task's result may claim to be a module's: a wrong type is
  // unreadable too, never a throw.
  try {
    if (j.is_discarded() || !j.is_object())
      throw std::runtime_error("not an object");
    r.node = j.value("node", "");
    r.error = j.value("error", "");
    r.output = j.value("output", "");
    r.duration_ms = j.value("duration_ms", std::int64_t{0});
    r.counts = counts_of(j.value("counts", json::object()));
    auto shares = j.value("shares", json::object());
    for (auto& [module, part] : shares.items()) {
      auto& share = r.shares[module];
      share.ms = part.value("ms", std::int64_t{0});
      share.counts = counts_of(part.value("counts", json::object()));
      share.error = part.value("error", "");
    }
    for (auto& t : j.value("tests", json::array())) {
      test_case_result tc;
      tc.id = t.value("id", "");
      tc.outcome = t.value("outcome", "");
      tc.seconds = static_cast<double>(t.value("ms", std::int64_t{0})) / 1000.0;
      tc.output = t.value("output", "");
      tc.flaky = t.value("flaky", false);
      r.tests.push_back(std::move(tc));
    }
  } catch (const std::exception&) {
    r = module_result{};
    r.error = "unreadable module result";
  }
  return r;
}

std::string module_of(const std::vector<std::string>& modules, const std::string& test_id) {
  auto prefix = test_id.substr(0, test_id.find("::"));
  for (const auto& m : modules)
    if (m == test_id)
      return m;
  for (const auto& m : modules)
    if (m == prefix)
      return m;
  return {};
}

std::map<std::string, module_share> group_shares(const std::vector<std::string>& modules,
                                                 const module_result& r) {
  std::map<std::string, module_share> out;
  if (modules.empty())
    return out;
  for (const auto& m : modules)
    out[m].error = r.error;
  std::int64_t accounted = 0;
  for (const auto& t : r.tests) {
    auto owner = module_of(modules, t.id);
    // A test id pytest wrote differently from the module's path still
    // counts, under the first module.
    auto& share = out[owner.empty() ? modules.front() : owner];
    share.counts.add(t.outcome, t.flaky);
    auto ms = static_cast<std::int64_t>(t.seconds * 1000);
    share.ms += ms;
    accounted += ms;
  }
  auto rest = std::max<std::int64_t>(0, r.duration_ms - accounted);
  for (auto& [m, share] : out)
    share.ms += rest / static_cast<std::int64_t>(modules.size());
  return out;
}

std::vector<module_result> split_group_result(const module_result& r,
                                              const std::vector<std::string>& modules) {
  if (modules.size() <= 1)
    return {r};
  std::vector<module_result> out(modules.size());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    auto& part = out[i];
    part.node = r.node;
    auto share = r.shares.find(modules[i]);
    if (share == r.shares.end()) {
      // Ended before it ran (failed or canceled): one error per module.
      part.error = r.error.empty() ? "no result for this module" : r.error;
      part.output = r.output;
      part.counts.errors = 1;
      continue;
    }
    part.duration_ms = share->second.ms;
    part.counts = share->second.counts;
    part.error = share->second.error;
    if (!part.error.empty())
      part.output = r.output;
    for (const auto& t : r.tests) {
      auto owner = module_of(modules, t.id);
      if (owner == modules[i] || (owner.empty() && i == 0))
        part.tests.push_back(t);
    }
  }
  return out;
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
