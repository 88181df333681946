#pragma once
// dice keys list|install|use|remove: the cluster keyring, changed on every
// live member (each through its own HTTP API) so a key rotates with no lost
// datagram: install the new key everywhere, use it, remove the old one.
#include "cli_args.hpp"
#include "client.hpp"

namespace dice::cli {

/// Exit 0 when every live member answered as asked; 1 naming those that
/// did not, or when a `use`/`remove` was refused (nothing changed); 2 for
/// a usage error or a bad key file.
int keys_command(client& node, const args& a, bool json);

} // namespace dice::cli
