#pragma once
// The "tests" part of GET /stats: what this node's runner did (modules,
// tests run, passed, failed) and what its blob store holds.
#include <nlohmann/json.hpp>

#include "tester/tester_node.hpp"

namespace dice {

nlohmann::json tester_stats_json(const tester_parts& t);

} // namespace dice
