#pragma once
// dice workflow submit FILE [--wait] | status ID | cancel ID | remove ID:
// a graph of steps (POST /workflows) and its state (GET /workflows/ID).
#include "cli_args.hpp"
#include "client.hpp"

namespace dice::cli {

int workflow_command(client& node, const args& a, bool json);

} // namespace dice::cli
