#pragma once
// Which subsystem a wire message belongs to; the bridge routes by it.
#include <string>

#include "dice.pb.h"

namespace dice {

/// "membership", "queue", "sync", "election" or "tester".
std::string topic_of(const wire::Message& m);

} // namespace dice
