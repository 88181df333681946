#pragma once
// dice event publish TOPIC DATA, dice event watch TOPIC: causal events.
#include <cstdint>
#include <string>
#include <vector>

#include "client.hpp"

namespace dice::cli {

/// `words` after "event": publish TOPIC DATA, or watch TOPIC (prints each
/// event this node delivers after its delivery index `since`, in causal
/// order, until killed or, with `count` > 0, until that many were printed).
int event_command(client& node, const std::vector<std::string>& words,
                  long long count, std::uint64_t since, bool json);

} // namespace dice::cli
