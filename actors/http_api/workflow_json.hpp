#pragma once
// Workflows: a graph of steps submitted at once (POST /workflows), and the
// graph with each step's state (GET /workflows/ID). A step is one task, or
// one per payload of a list (a fan-out); a step names the earlier steps it
// runs after, so a chain, a group and a chord (a fan-in) are all graphs of
// steps. Every task's id derives from the workflow's id and the step's
// name, so the same workflow submitted again (with its key) is the same
// tasks. Plain functions, tested without a server.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dice.pb.h"
#include "http_api/task_json.hpp"
#include "known_tasks/task_query.hpp"

namespace dice {

struct workflow_request {
  std::string id; // "wf-" and 24 hex digits
  bool keyed = false; // its id came from the body's key
  std::vector<wire::TaskSpec> specs; // every task, steps in order
  nlohmann::json steps; // {"step name": [task ids]}
};

/// Most steps of one workflow (its tasks are bounded by submit_limits).
constexpr std::size_t max_workflow_steps = 1000;

/// Parses a POST /workflows body:
///   {"key"?: K, "steps": [{"name": N, "kind": K, "payload": P |
///     "payloads": [P, ...], "after"?: [earlier step names],
///     "on_parent_failure"?, and POST /tasks's priority, locks, data_objects
///     and policy fields but "count" and "key"}, ...]}
/// `fresh_id` names a workflow without a key. On bad input returns nullopt
/// and sets `error`, naming the step.
std::optional<workflow_request>
parse_workflow(const std::string& body, const std::vector<std::string>& known_kinds,
               const std::string& fresh_id, std::string& error, millis now);

/// A workflow id no other submit picks: "wf-" and 96 random bits.
std::string fresh_workflow_id();

/// The workflow id a key gives (the same at every node).
std::string keyed_workflow_id(const std::string& key);

/// GET /workflows/ID: {"id", "state" (done; failed if any task ended
/// otherwise; running), "counts": {state: n}, "steps": [{"name", "after":
/// [step names], "state", "tasks": [{"id", "state", "node", "result" |
/// "reason"}]}]}, steps in the graph's order.
nlohmann::json workflow_json(const std::string& id, const std::vector<task_row>& rows);

/// GET /workflows: {"workflows": [{"id", "state", "steps", "tasks",
/// "counts", "enqueued_at_ms"}], "total"}, newest first, at most `limit`;
/// `state` as workflow_json gives it, `total` the workflows in `rows`.
nlohmann::json workflow_list_json(const std::vector<task_row>& rows, std::size_t limit);

} // namespace dice
