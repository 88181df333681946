#pragma once
// dice drain [NODE] and dice undrain [NODE]: a node stops claiming new tasks
// and finishes what it holds (--leave: then stops), or claims again.
#include "cli_args.hpp"
#include "client.hpp"

namespace dice::cli {

/// `undrain` false: dice drain; true: dice undrain. NODE (a node id) is
/// reached through the members `node` knows; none: `node` itself.
int drain_command(client& node, const args& a, bool undrain, bool json);

} // namespace dice::cli
