#pragma once
#include <caf/fwd.hpp>

namespace dice {

/// Registers DiCE's in-process message types with an actor system config.
/// Call once before constructing the actor system (embedding programs too).
void register_message_types(caf::actor_system_config& cfg);

} // namespace dice
