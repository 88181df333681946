#pragma once
// One task as a journal keeps it: the record restore() merges back.
#include <string>
#include <vector>

#include "dice.pb.h"
#include "known_tasks/known_tasks.hpp"

namespace dice {

/// The task's merged state, with its spec when `with_spec` (a task's first
/// record), else only its id.
wire::TakeMyTask replica_record(const std::string& task_id,
                                const known_task& task, bool with_spec);

/// The record of numbers forgotten: it outranks their tasks' records.
wire::TakeMyTask forgotten_record(const std::vector<wire::ForgottenRange>& ranges);

} // namespace dice
