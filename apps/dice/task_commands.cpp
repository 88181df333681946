#include "task_commands.hpp"

#include <iostream>
#include <set>

#include "format.hpp"

namespace dice::cli {

namespace {

// Ids per GET /tasks?ids=...: within the node's 256 and its 8 KiB URI.
constexpr std::size_t ids_per_request = 100;

// The filters of GET /tasks the options give (--on: the claiming node),
// and with `page` the page's --limit and --after.
httplib::Params filters_of(const args& a, bool page) {
  struct filter {
    const char* option;
    const char* name;
    bool paging;
  };
  httplib::Params params;
  for (auto f : {filter{"--state", "state", false}, {"--kind", "kind", false},
                 {"--on", "node", false}, {"--limit", "limit", true},
                 {"--after", "after", true}})
    if (a.opts.count(f.option) && (page || !f.paging))
      params.emplace(f.name, a.opts.at(f.option));
  return params;
}

} // namespace

int list_tasks(client& node, const args& a, bool json) {
  if (a.words.size() != 1)
    return fail("usage: dice tasks [--state S] [--kind K] [--on NODE] "
                "[--limit N] [--after ID]", 2);
  auto r = node.get("/tasks", filters_of(a, true));
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
  // Unknown ids are left out by the node: name them, and fail.
  if (all.size() < ids.size()) {
    std::set<std::string> known;
    for (auto& t : all)
      known.insert(t.value("id", ""));
    std::string unknown;
    std::size_t named = 0;
    for (auto& id : ids)
      if (known.count(id) == 0 && named++ < 5)
        unknown += (unknown.empty() ? "" : ", ") + id;
    if (named > 5)
      unknown += " and " + std::to_string(named - 5) + " more";
    return fail(std::to_string(ids.size() - all.size()) + " of "
                + std::to_string(ids.size())
                + " ids are unknown to the node: " + unknown);
  }
  return 0;
}

int change_tasks(client& node, const args& a, bool json) {
  const auto& cmd = a.words[0];
  bool cancel = cmd == "cancel";
  const char* done = cancel ? "canceled" : "removed";
  auto filters = filters_of(a, false);
  std::vector<std::string> ids(a.words.begin() + 1, a.words.end());
  bool dry_run = a.opts.count("--dry-run") > 0;
  if (ids.empty() == filters.empty() || (ids.size() == 1 && dry_run))
    return fail("usage: dice " + cmd + " ID | ID ID... | --state S [--kind K] "
                "[--on NODE] [--dry-run]", 2);
  if (ids.size() == 1) { // one task: its own route, and a 404 or 409 says why
    auto r = cancel ? node.post_empty("/tasks/" + ids[0] + "/cancel")
                    : node.del("/tasks/" + ids[0]);
    if (!r.ok())
      return fail(r.error);
    if (json)
      std::cout << r.body.dump() << "\n";
    else
      std::cout << ids[0] << " " << done << "\n";
    return 0;
  }
  // Many: a page of the filter (or 100 ids) per request, until none is left.
  std::size_t matched = 0, changed = 0;
  for (std::size_t from = 0;;) {
    auto params = filters;
    if (!ids.empty()) {
      std::string list;
      for (std::size_t i = from; i < ids.size() && i < from + ids_per_request; ++i)
        list += (list.empty() ? "" : ",") + ids[i];
      params.emplace("ids", list);
      from += ids_per_request;
    }
    if (dry_run)
      params.emplace("dry_run", "1");
    auto path = httplib::append_query_params(cancel ? "/tasks/cancel" : "/tasks",
                                             params);
    auto r = cancel ? node.post_empty(path) : node.del(path);
    if (!r.ok())
      return fail(r.error + (changed ? " (after " + std::to_string(changed)
                                         + " " + done + ")"
                                     : std::string()));
    matched += r.body.value("matched", std::size_t{0});
    changed += r.body.value(done, std::size_t{0});
    bool more = ids.empty() ? r.body.value("more", false) && !dry_run
                            : from < ids.size();
    if (!more)
      break;
  }
  if (json)
    std::cout << nlohmann::json{{"matched", matched}, {done, changed},
                                {"dry_run", dry_run}}.dump() << "\n";
  else if (dry_run)
    std::cout << matched << " task(s) would be " << done << " (dry run)\n";
  else
    std::cout << changed << " task(s) " << done << " of " << matched
              << " matched\n";
  return 0;
}

int retry_task(client& node, const args& a, bool json) {
  if (a.words.size() != 2)
    return fail("usage: dice retry ID", 2);
  auto r = node.get("/tasks/" + a.words[1]);
  if (!r.ok())
    return fail(r.error);
  const auto& t = r.body;
  auto state = t.value("state", "");
  if (state != "failed" && state != "expired" && state != "canceled")
    return fail("task " + a.words[1] + " is " + state + ": only a failed, "
                "expired or canceled task is retried", 1);
  // Its policy travels; its times (delay, expiry) and its key do not: they
  // belong to the first submit, and the key would name the same task.
  nlohmann::json body{{"kind", t["kind"]}, {"payload", t["payload"]},
                      {"priority", t["priority"]}};
  if (t.contains("locks") && !t["locks"].empty())
    body["locks"] = t["locks"];
  for (const char* field : {"time_limit_ms", "max_attempts", "backoff_ms"})
    if (t.contains(field) && !t[field].is_null())
      body[field] = t[field];
  auto s = node.post("/tasks", body);
  if (!s.ok())
    return fail(s.error);
  if (json)
    std::cout << s.body.dump() << "\n";
  else
    std::cout << s.body["ids"][0].get<std::string>() << "\n";
  return 0;
}

} // namespace dice::cli
