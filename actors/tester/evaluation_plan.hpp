#pragma once
// From a POST /evaluation to the tasks that make the evaluation: the
// request's options checked, and the evaluation's record and module tasks
// built. Modules are ordered longest first when an earlier run of the
// same project (by name) left their durations in the replica: a module's
// priority is its remembered duration, so the queue's priority order
// starts the long ones first and the short ones fill in at the end.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/time.hpp"
#include "dice.pb.h"
#include "tester/evaluation.hpp"
#include "tester/evaluation_request.hpp"
#include "tester/tester_config.hpp"

namespace dice {

/// A fresh evaluation id: the node's id, the time and a counter.
std::string new_evaluation_id(const std::string& node_id, millis now, std::uint64_t n);

/// The record task (kind "evaluation", id e.id) followed by one "test"
/// task per module (ids module_task_id(e.id, i)), each naming the blob
/// (TaskSpec.blobs): a node that holds it counts it as a data object of
/// its claim, so the ranking prefers the nodes that need not fetch it.
/// `sources` are the HTTP addresses of nodes that hold the blob;
/// `durations_ms` maps module names to durations of an earlier run
/// (longest first).
std::vector<wire::TaskSpec>
evaluation_specs(const evaluation_record& e, const std::vector<std::string>& modules,
                 const std::vector<std::string>& sources,
                 const std::map<std::string, std::int64_t>& durations_ms);

/// Module durations of the latest finished evaluation among `earlier`
/// (records with their module rows) of project `name`.
std::map<std::string, std::int64_t>
remembered_durations(const std::string& name,
                     const std::vector<std::pair<evaluation_record,
                                                 std::vector<module_row>>>& earlier);

} // namespace dice
