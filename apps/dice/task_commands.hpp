#pragma once
// dice tasks (filters and pages) and dice results (many results at once).
#include "cli_args.hpp"
#include "client.hpp"

namespace dice::cli {

/// GET /tasks with --state, --kind, --on, --limit, --after.
int list_tasks(client& node, const args& a, bool json);
/// GET /tasks?ids=...&with=result, 100 ids a request.
int results(client& node, const args& a, bool json);
/// dice cancel|remove ID: one task; ID ID... or --state/--kind/--on: many
/// (POST /tasks/cancel, DELETE /tasks), --dry-run to count only.
int change_tasks(client& node, const args& a, bool json);
/// dice retry ID: a failed, expired or canceled task submitted again as a
/// new task (kind, payload, priority, locks, time limit, retries, backoff).
int retry_task(client& node, const args& a, bool json);

} // namespace dice::cli
