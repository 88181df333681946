#pragma once
// From a POST /evaluation to the tasks that make the evaluation: the
// request's options checked, and the evaluation's record and module tasks
// built. Modules are ranked longest first: by the durations an earlier run
// of the same project (by name) left in the replica, else by a prior (a
// test file's size), so the long ones start first and the short ones fill
// in at the end. A module's priority is minus its rank (0, -1, -2, ...,
// down to -tester_priority_band): the queue's priority order
// then takes the evaluations' modules in turns (rank 0 of each, then
// rank 1 of each, ...), whatever history each has, and a user task at the
// default priority never waits behind a module.
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

/// Module tasks an evaluation aims at per live runner node: enough for
/// longest-first to even out the nodes' ends, few enough that light pytest
/// modules share an interpreter start.
constexpr std::size_t tester_tasks_per_runner = 4;
/// Test modules take priorities 0 (an evaluation's first module) down to
/// -tester_priority_band (its later ones): a user task at the default
/// priority 0 is never outranked by a module, and modules of equal rank in
/// two evaluations share a priority, so the evaluations take turns.
constexpr std::int32_t tester_priority_band = 1000;

/// A fresh evaluation id: the node's id, the time and a counter.
std::string new_evaluation_id(const std::string& node_id, millis now, std::uint64_t n);

/// `modules` packed into tasks. Each task costs one runner start
/// (interpreter, imports, collection), which for a light module is as much
/// as its tests, so light modules share a task: stretches of `modules`, in
/// their order, each aiming at the project's weight over
/// tester_tasks_per_runner x `runners`; a module at least that heavy runs
/// alone. The weight is the remembered duration when every module has
/// one, else the prior, else 1 each. The tasks' ranks (evaluation_specs)
/// still put the heaviest first.
std::vector<std::vector<std::string>>
module_groups(const std::vector<std::string>& modules,
              const std::map<std::string, std::int64_t>& durations_ms,
              const std::map<std::string, std::uint64_t>& priors, std::size_t runners);

/// The record task (kind "evaluation", id e.id) followed by one "test"
/// task per group of modules (ids module_task_id(e.id, i)), each naming the blob
/// (TaskSpec.blobs): a node that holds it counts it as a data object of
/// its claim, so the ranking prefers the nodes that need not fetch it.
/// `sources` are the API base URLs of nodes that hold the blob;
/// `durations_ms` maps module names to durations of an earlier run
/// (longest first).
/// `priors` maps module names to a guess of their weight (larger: longer),
/// used for modules without a remembered duration.
std::vector<wire::TaskSpec>
evaluation_specs(const evaluation_record& e,
                 const std::vector<std::vector<std::string>>& groups,
                 const std::vector<std::string>& sources,
                 const std::map<std::string, std::int64_t>& durations_ms,
                 const std::map<std::string, std::uint64_t>& priors = {});

/// Each module's rank, longest first (0: the first to run): modules never
/// run before go first (they may be the long ones), by prior, largest
/// first; then by remembered duration, longest first; ties in list order.
std::vector<std::size_t>
module_ranks(const std::vector<std::string>& modules,
             const std::map<std::string, std::int64_t>& durations_ms,
             const std::map<std::string, std::uint64_t>& priors);

/// The queue priority of the module of rank `rank`.
std::int32_t module_priority(std::size_t rank);

/// Module durations of the latest finished evaluation among `earlier`
/// (a group's modules each by its share)
/// (records with their module rows) of project `name`.
std::map<std::string, std::int64_t>
remembered_durations(const std::string& name,
                     const std::vector<std::pair<evaluation_record,
                                                 std::vector<module_row>>>& earlier);

} // namespace dice
