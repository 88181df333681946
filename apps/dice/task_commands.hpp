#pragma once
// dice tasks (filters and pages) and dice results (many results at once).
#include "cli_args.hpp"
#include "client.hpp"

namespace dice::cli {

/// GET /tasks with --state, --kind, --on, --limit, --after.
int list_tasks(client& node, const args& a, bool json);
/// GET /tasks?ids=...&with=result, 100 ids a request.
int results(client& node, const args& a, bool json);

} // namespace dice::cli
