#pragma once
// dice schedule add NAME (--every DURATION | --cron "M H D MON W")
// [--jitter DURATION] [--catch-up last|none|all] [--] KIND PAYLOAD [task
// options], dice schedule list, dice schedule remove NAME.
#include "cli_args.hpp"
#include "client.hpp"

namespace dice::cli {

int schedule_command(client& node, const args& a, bool json);

} // namespace dice::cli
