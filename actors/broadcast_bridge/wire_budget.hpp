#pragma once
// How many body bytes a message may carry so that its sealed datagram stays
// within --bundle-bytes: the queue cuts its replies and announcements to
// this, the bridge packs bundles to it.
#include <cstddef>

#include "broadcast_bridge/bridge_state.hpp"

namespace dice {

/// Bytes the envelope adds around a body: the header (ids, address,
/// incarnation, sequence, timestamp), framing and the HMAC tag.
std::size_t envelope_bytes(const bridge_identity& self);

/// The body budget for `self` under `limits`: bundle_bytes (or the datagram
/// limit when bundle_bytes is 0) less the envelope; never 0.
std::size_t body_budget(const bridge_identity& self, const bridge_limits& limits);

} // namespace dice
