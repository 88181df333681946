#pragma once
// The JSON bodies of the node's HTTP API, built from plain values so they
// are tested without a server.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "broadcast_bridge/bridge_counters.hpp"
#include "election/election_node.hpp"
#include "known_tasks/task_query.hpp"
#include "membership/node_view.hpp"
#include "vocabulary/queue_counters.hpp"

namespace dice {

nlohmann::json health_json(const std::string& self_id);
nlohmann::json nodes_json(const std::string& self_id,
                          const std::vector<node_view>& nodes);
/// Datagram counters; drops are broken down by reason.
nlohmann::json bridge_json(const bridge_counters& c);
nlohmann::json error_json(const std::string& message);
/// How many tasks of this replica are in each state.
nlohmann::json task_counts_json(const task_counts& counts);
/// The replica's protocol counters.
nlohmann::json queue_json(const queue_counters& c);
/// GET /election: {"algorithm", "coordinator" (null when none), "state",
/// "group"}, plus the coordinator's members and the counters.
nlohmann::json election_json(const election_view& v);

} // namespace dice
