#pragma once
// The JSON bodies of the node's HTTP API, built from plain values so they
// are tested without a server.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "broadcast_bridge/bridge_counters.hpp"
#include "membership/node_view.hpp"

namespace dice {

nlohmann::json health_json(const std::string& self_id);
nlohmann::json nodes_json(const std::string& self_id,
                          const std::vector<node_view>& nodes);
/// Datagram counters; drops are broken down by reason.
nlohmann::json bridge_json(const bridge_counters& c);
nlohmann::json error_json(const std::string& message);

} // namespace dice
