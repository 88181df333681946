#include "workflow_command.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include "progress.hpp"
#include "yaml_json.hpp"

namespace dice::cli {

namespace {

const char* usage =
  "usage: dice workflow submit FILE.json|FILE.yaml [--wait] [--timeout S] | status ID "
  "| cancel ID | remove ID";

// A step's line: its name, state, the steps it runs after, and its
// results (or reasons) when short.
void print_status(const nlohmann::json& w) {
  std::cout << "workflow " << w.value("id", "") << ": " << w.value("state", "") << "\n";
  for (const auto& s : w.at("steps")) {
    std::cout << "  " << s.value("name", "") << "  " << s.value("state", "");
    if (!s["after"].empty()) {
      std::cout << "  after";
      for (const auto& a : s["after"])
        std::cout << " " << a.get<std::string>();
    }
    auto n = s["tasks"].size();
    if (n > 1)
      std::cout << "  (" << n << " tasks)";
    std::cout << "\n";
    if (n == 1) {
      const auto& t = s["tasks"][0];
      auto text = t.contains("result") ? t["result"].get<std::string>()
                  : t.contains("reason") ? t["reason"].get<std::string>()
                                         : "";
      if (!text.empty() && text.size() <= 200)
        std::cout << "      " << (t.contains("result") ? "result: " : "reason: ")
                  << text << (text.back() == '\n' ? "" : "\n");
    }
  }
}

} // namespace

int workflow_command(client& node, const args& a, bool json) {
  if (a.words.size() != 3)
    return fail(usage, 2);
  const auto& verb = a.words[1];
  const auto& arg = a.words[2];
  if (verb == "status") {
    auto r = node.get("/workflows/" + arg);
    if (!r.ok())
      return fail(r.error);
    if (json)
      std::cout << r.body.dump() << "\n";
    else
      print_status(r.body);
    auto state = r.body.value("state", "");
    return state == "done" ? 0 : state == "failed" ? 1 : 0;
  }
  if (verb == "cancel" || verb == "remove") {
    auto path = "/tasks" + std::string(verb == "cancel" ? "/cancel" : "")
                + "?workflow=" + arg;
    auto r = verb == "cancel" ? node.post(path, nlohmann::json::object())
                              : node.del(path);
    if (!r.ok())
      return fail(r.error);
    auto changed = r.body.value(verb == "cancel" ? "canceled" : "removed", 0);
    if (json)
      std::cout << r.body.dump() << "\n";
    else
      std::cout << changed << " tasks of workflow " << arg << " "
                << (verb == "cancel" ? "canceled" : "removed") << "\n";
    return 0;
  }
  if (verb != "submit")
    return fail(usage, 2);
  std::ifstream in(arg);
  if (!in)
    return fail("cannot read " + arg, 2);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json body;
  if (is_yaml_path(arg)) {
    std::string error;
    if (!yaml_to_json(text.str(), body, error))
      return fail(arg + " is not valid YAML: " + error, 2);
  } else {
    body = nlohmann::json::parse(text.str(), nullptr, false);
    if (body.is_discarded())
      return fail(arg + " is not valid JSON (a .yaml or .yml file is read as YAML)", 2);
  }
  auto r = node.post("/workflows", body);
  if (!r.ok())
    return fail(r.error, r.status == 400 ? 2 : 1);
  auto id = r.body.value("workflow", "");
  if (a.opts.count("--wait") == 0) {
    if (json)
      std::cout << r.body.dump() << "\n";
    else
      std::cout << id << "\n";
    return 0;
  }
  long long timeout_s = 3600;
  if (a.opts.count("--timeout") && !number(a.opts.at("--timeout"), 1, 31'536'000, timeout_s))
    return fail("--timeout must be a number of seconds", 2);
  if (!json)
    std::cout << "workflow " << id << "\n";
  wait_request w;
  w.ids = r.body.at("ids").get<std::vector<std::string>>();
  w.timeout_s = static_cast<double>(timeout_s);
  w.json = json;
  auto code = wait_for(node, w);
  if (auto s = node.get("/workflows/" + id); s.ok() && !json)
    print_status(s.body);
  return code;
}

} // namespace dice::cli
