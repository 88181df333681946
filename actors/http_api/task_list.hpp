#pragma once
// GET /tasks: its parameters (filters, a page, bulk results, a tally per
// node) and its answer, as plain functions tested without a server.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "known_tasks/task_query.hpp"

namespace dice {

/// The largest page one GET /tasks returns: ~170 bytes a row, so about
/// 1.7 MB, which a node builds and sends well within its 5 s timeouts.
constexpr std::size_t max_task_page = 10'000;

/// The longest GET /tasks/{id}?wait_ms=N: a client that waits longer asks
/// again, and a poll never outlives an idle connection's timeout.
constexpr long long max_task_poll_ms = 30'000;
/// The most tasks a submit may wait for (POST /tasks?wait_ms): each is
/// listed in the answer.
constexpr std::size_t max_waited_submit = 1'000;

/// GET /tasks/{id}?wait_ms=N and POST /tasks?wait_ms=N: how long to wait
/// for the task (or the tasks submitted) to end (0, the
/// default: answer at once). Any other parameter or a bad value is
/// refused (nullopt, `error` set).
std::optional<long long>
parse_task_wait(const std::multimap<std::string, std::string>& params,
                std::string& error);

struct task_list_request {
  task_query query;
  bool with_result = false; // with=result: each row carries result/reason
  bool by_node = false;     // group=node: counts per executing node, no rows
};

/// A `limit` parameter's value: an integer from 1 to `max`, or nullopt.
std::optional<std::size_t> parse_page_limit(const std::string& value, std::size_t max);

/// GET /tasks?state=&kind=&node=&limit=&after=&ids=&with=result&group=node.
/// An unknown parameter or a bad value is refused (nullopt, `error` set)
/// rather than ignored. `limit` is the page the client wants; the query
/// asks the replica for one more row, so the answer knows if more follow.
std::optional<task_list_request>
parse_task_list(const std::multimap<std::string, std::string>& params,
                std::string& error);

/// The answer: {"tasks": [...]} in the replica's order, with "next_after"
/// (the id to pass as `after`) when the page is full and more follow; for
/// group=node {"total", "by_node": {node: n}, "unclaimed"}.
nlohmann::json task_list_json(const std::vector<task_row>& rows,
                              const task_list_request& request);

} // namespace dice
