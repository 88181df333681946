#include "common/caf_setup.hpp"

#include <caf/actor_system_config.hpp>

#include "type_ids.hpp"

namespace dice {

void register_message_types(caf::actor_system_config& cfg) {
  // Atoms need no registration and wire::Message is an allowed unsafe type;
  // the structs below travel between local actors and print in logs.
  (void) cfg;
}

caf::actor_system_config& deterministic(caf::actor_system_config& cfg) {
  register_message_types(cfg);
  cfg.set("scheduler.policy", caf::atom("testing"));
  cfg.set("logger.file-verbosity", caf::atom("quiet"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  return cfg;
}

} // namespace dice
