#pragma once
#include <caf/fwd.hpp>

namespace dice {

/// Registers DiCE's in-process message types with an actor system config.
/// Call once before constructing the actor system (embedding programs too).
void register_message_types(caf::actor_system_config& cfg);

/// Registers the message types and selects CAF's test scheduler, with
/// logging off: every actor runs on the caller's thread and timers fire only
/// as the caller advances the test clock (simulations and actor tests).
caf::actor_system_config& deterministic(caf::actor_system_config& cfg);

} // namespace dice
