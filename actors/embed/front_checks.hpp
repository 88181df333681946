#pragma once
// What the front actor refuses before it asks the node's actors: the checks
// POST /tasks and POST /events make, on the embedding API's values.
#include <optional>
#include <string>
#include <variant>

#include "common/time.hpp"
#include "dice.pb.h"
#include "dice/refusal.hpp"
#include "dice/task.hpp"

namespace dice::embed {

/// A refusal and its one-line reason.
struct problem {
  refusal code;
  std::string reason;
};

/// The spec the queue takes for `t` at wall time `now` (its id set only
/// for a key), or why not. Whether some member runs its kind is the
/// front's question, asked of the cluster.
std::variant<wire::TaskSpec, problem> task_spec_of(const task& t, millis now);

/// Why an event of `topic` with `data` cannot be published, if it cannot.
std::optional<problem> publish_problem(const std::string& topic,
                                       const std::string& data);

} // namespace dice::embed
