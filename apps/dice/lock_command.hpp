#pragma once
// dice lock NAME [--timeout S] -- COMMAND...: runs COMMAND on this machine
// while holding a cluster-wide lock (flock across machines), and dice locks.
#include <string>
#include <vector>

#include "client.hpp"

namespace dice::cli {

/// Waits up to `timeout_s` for the lock (exit 3 and a clear error if it does
/// not come), runs `command` holding it (renewing its lease), gives it back
/// and returns the command's exit status (128+N if signal N killed it). If
/// the node loses the lock meanwhile the command is killed (exit 4).
int lock_command(client& node, const std::string& name, double timeout_s,
                 const std::vector<std::string>& command, bool json);

/// GET /locks as a table (or JSON).
int show_locks(client& node, bool json);

} // namespace dice::cli
