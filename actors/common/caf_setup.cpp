#include "common/caf_setup.hpp"

#include <caf/actor_system_config.hpp>

#include "type_ids.hpp"

namespace dice {

void register_message_types(caf::actor_system_config& cfg) {
  // Atoms need no registration and wire::Message is an allowed unsafe type;
  // the structs below travel between local actors and print in logs.
  (void) cfg;
}

} // namespace dice
