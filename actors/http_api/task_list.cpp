#include "http_api/task_list.hpp"

#include "http_api/task_json.hpp"

namespace dice {

namespace {

const char* known_params = "state, kind, node, workflow, limit, after, ids, with, group";

} // namespace

std::optional<std::size_t> parse_page_limit(const std::string& value, std::size_t max) {
  std::size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(value, &used);
  } catch (...) {
    return std::nullopt;
  }
  if (used == 0 || used != value.size() || value[0] == '-' || n < 1 || n > max)
    return std::nullopt;
  return static_cast<std::size_t>(n);
}

std::optional<long long>
parse_task_wait(const std::multimap<std::string, std::string>& params,
                std::string& error) {
  long long wait = 0;
  for (auto& [name, value] : params) {
    if (name != "wait_ms") {
      error = "unknown parameter '" + name + "' (known: wait_ms)";
      return std::nullopt;
    }
    auto n = value == "0" ? std::optional<std::size_t>{0}
                          : parse_page_limit(value, max_task_poll_ms);
    if (params.count(name) > 1 || !n) {
      error = "wait_ms must be given once, an integer from 0 to "
              + std::to_string(max_task_poll_ms);
      return std::nullopt;
    }
    wait = static_cast<long long>(*n);
  }
  return wait;
}

std::optional<task_list_request>
parse_task_list(const std::multimap<std::string, std::string>& params,
                std::string& error) {
  auto fail = [&](std::string why) -> std::optional<task_list_request> {
    error = std::move(why);
    return std::nullopt;
  };
  task_list_request r;
  auto& q = r.query;
  for (auto& [name, value] : params) {
    if (params.count(name) > 1)
      return fail("parameter '" + name + "' given more than once");
    if (name == "state") {
      auto s = parse_state(value);
      if (!s)
        return fail("state must be one of " + state_names());
      q.phase = s->phase;
      q.claimed_ahead = s->claimed_ahead;
    } else if (name == "workflow") {
      q.workflow = value;
    } else if (name == "kind" || name == "node" || name == "after") {
      if (value.empty())
        return fail(name + " must not be empty");
      (name == "kind" ? q.kind : name == "node" ? q.node : q.after) = value;
    } else if (name == "limit") {
      auto n = parse_page_limit(value, max_task_page);
      if (!n)
        return fail("limit must be an integer from 1 to "
                    + std::to_string(max_task_page));
      q.limit = *n + 1; // one more: is there a next page?
    } else if (name == "ids") {
      auto ids = parse_ids(value, error);
      if (!ids)
        return std::nullopt;
      q.ids = std::move(*ids);
    } else if (name == "with") {
      if (value != "result")
        return fail("with must be 'result'");
      r.with_result = true;
    } else if (name == "group") {
      if (value != "node")
        return fail("group must be 'node'");
      r.by_node = true;
    } else {
      return fail("unknown parameter '" + name + "' (known: " + known_params + ")");
    }
  }
  if (!q.ids.empty() && (q.limit || q.after))
    return fail("limit and after page through the whole list; not with ids");
  if (r.by_node && (q.limit || q.after))
    return fail("group=node counts every matching task; not with limit or after");
  return r;
}

nlohmann::json task_list_json(const std::vector<task_row>& rows,
                              const task_list_request& request) {
  if (request.by_node) {
    std::map<std::string, std::size_t> by_node;
    std::size_t total = 0, unclaimed = 0;
    for (auto& r : rows) {
      if (!r.has_spec)
        continue;
      ++total;
      if (r.state.has_claim())
        ++by_node[r.state.claim().node_id()];
      else
        ++unclaimed;
    }
    return {{"total", total}, {"by_node", by_node}, {"unclaimed", unclaimed}};
  }
  auto list = nlohmann::json::array();
  auto page = request.query.limit ? *request.query.limit - 1 : rows.size();
  std::size_t shown = 0;
  for (std::size_t i = 0; i < rows.size() && shown < page; ++i) {
    auto& r = rows[i];
    if (!r.has_spec)
      continue;
    auto j = task_json(r.spec, r.state, false);
    if (request.with_result) {
      if (r.state.phase() == wire::DONE)
        j["result"] = r.state.result();
      if (!r.state.reason().empty())
        j["reason"] = r.state.reason();
    }
    list.push_back(std::move(j));
    ++shown;
  }
  nlohmann::json body{{"tasks", list}};
  if (request.query.limit && rows.size() > page && !list.empty())
    body["next_after"] = list.back()["id"];
  return body;
}

} // namespace dice
