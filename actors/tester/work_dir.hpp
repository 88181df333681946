#pragma once
// A node's work dir holds the workspaces (ws-*) of running modules and the
// clones (clone-*) of git projects being packed; both are removed when
// done. A node killed mid-run leaves its own behind, which nothing else
// would remove: the node sweeps them when it starts again (the work dir is
// its own; two nodes never share one, as its default name has the id).
#include <cstddef>
#include <string>

namespace dice {

/// Removes the ws-* and clone-* directories directly under `work_dir`;
/// how many were removed. A missing work dir has none.
std::size_t sweep_stale_workspaces(const std::string& work_dir);

} // namespace dice
