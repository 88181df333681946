#pragma once
// `dice submit --wait`: follows submitted tasks to their end, drawing a live
// bar on a terminal and plain lines otherwise, then prints a summary.
#include <string>
#include <vector>

#include "client.hpp"

namespace dice::cli {

/// Returns the process exit code: 0 if every task is done, 1 if any failed,
/// expired, was canceled or removed, or the wait timed out; 3 if the node
/// vanished.
int wait_for(client& node, const std::vector<std::string>& ids,
             double timeout_s, bool json);

} // namespace dice::cli
