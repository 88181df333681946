#include "task_commands.hpp"

#include <iostream>

#include "format.hpp"

namespace dice::cli {

namespace {

// Ids per GET /tasks?ids=...: within the node's 256 and its 8 KiB URI.
constexpr std::size_t ids_per_request = 100;

} // namespace

int list_tasks(client& node, const args& a, bool json) {
  if (a.words.size() != 1)
    return fail("usage: dice tasks [--state S] [--kind K] [--on NODE] "
                "[--limit N] [--after ID]", 2);
  httplib::Params params;
  for (auto [option, name] : {std::pair{"--state", "state"}, {"--kind", "kind"},
                              {"--on", "node"}, {"--limit", "limit"},
                              {"--after", "after"}})
    if (a.opts.count(option))
      params.emplace(name, a.opts.at(option));
  auto r = node.get("/tasks", params);
  if (!r.ok())
    return fail(r.error);
  if (json)
    std::cout << r.body.dump() << "\n";
  else
    std::cout << tasks_table(r.body);
  return 0;
}

int results(client& node, const args& a, bool json) {
  std::vector<std::string> ids(a.words.begin() + 1, a.words.end());
  if (ids.size() == 1 && ids[0] == "-") {
    ids.clear();
    for (std::string id; std::cin >> id;)
      ids.push_back(id);
  }
  if (ids.empty())
    return fail("usage: dice results ID... (or - to read ids from stdin)", 2);
  auto all = nlohmann::json::array();
  for (std::size_t from = 0; from < ids.size(); from += ids_per_request) {
    std::string list;
    for (std::size_t i = from; i < ids.size() && i < from + ids_per_request; ++i)
      list += (list.empty() ? "" : ",") + ids[i];
    auto r = node.get("/tasks", {{"ids", list}, {"with", "result"}});
    if (!r.ok())
      return fail(r.error);
    for (auto& t : r.body["tasks"])
      all.push_back(t);
  }
  if (json)
    std::cout << nlohmann::json{{"tasks", all}}.dump() << "\n";
  else
    std::cout << results_table(all);
  // Unknown ids are left out by the node: say so, and fail.
  if (all.size() < ids.size())
    return fail(std::to_string(ids.size() - all.size()) + " of "
                + std::to_string(ids.size()) + " ids are unknown to the node");
  return 0;
}

} // namespace dice::cli
