#pragma once
// An evaluation: one project blob split into modules, each a `test` task
// of the replicated queue. The evaluation itself is a task too (kind
// `evaluation`, a no-op whose payload is this record), so every replica
// holds it; module i's task id is derived from the evaluation's, and the
// report is computed from the module tasks' states and results, which
// every replica has: any node answers for any evaluation, identically.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dice.pb.h"
#include "tester/test_module.hpp"

namespace dice {

struct evaluation_record {
  std::string id;
  std::string name;       // what the user called the project
  std::string blob;       // SHA-256 of the project archive
  std::uint64_t blob_bytes = 0;
  std::string runner;     // pytest, cmd
  std::string split;      // file, test, list
  std::uint32_t timeout_s = 0;
  std::uint32_t reruns = 0;
  std::uint32_t modules = 0;
  // Module tasks: light pytest modules share one (see evaluation_plan.hpp).
  std::uint32_t tasks = 0;
  std::string origin;     // the node that accepted it
  std::int64_t submitted_ms = 0;
};

std::string encode_evaluation(const evaluation_record& e);
std::optional<evaluation_record> decode_evaluation(const std::string& payload);

/// The task id of module `index` of evaluation `eval_id`.
std::string module_task_id(const std::string& eval_id, std::size_t index);

/// One module task as a replica holds it.
struct module_row {
  bool known = false;          // the replica holds its spec
  wire::TaskSpec spec;
  wire::TaskState state;
};

/// The report of GET /evaluation/{id}: state ("running" until every
/// module task ended, then "done"), totals, each module with its node,
/// state and tests, and per node what it ran. `rows` are the module
/// tasks in index order (module_task_id(id, 0...tasks-1)); a task of
/// several modules is reported as one entry per module.
nlohmann::json evaluation_report(const evaluation_record& e,
                                 const std::vector<module_row>& rows);

/// The short form for GET /evaluation (a list).
nlohmann::json evaluation_summary(const evaluation_record& e,
                                  const std::vector<module_row>& rows);

} // namespace dice
