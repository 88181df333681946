#pragma once
// Which subsystem a wire message belongs to; the bridge routes by it.
#include <string>

#include "dice.pb.h"

namespace dice {

/// "membership", "queue", "sync", "election", "tester", "mutex", "causal"
/// or "identity" (incarnation probes and notices, which no subsystem takes).
std::string topic_of(const wire::Message& m);

/// The name of `m`'s body field in dice.proto ("sync_reply", "bundle", ...),
/// or "" when it has none.
std::string body_name(const wire::Message& m);

} // namespace dice
