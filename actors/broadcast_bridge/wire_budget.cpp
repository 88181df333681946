#include "broadcast_bridge/wire_budget.hpp"

#include <algorithm>

namespace dice {

namespace {

/// Bytes a sealed datagram adds around a message's body, besides the
/// cluster id, node id and address it carries: varint header fields,
/// framing, the HMAC tag.
constexpr std::size_t envelope_overhead = 128;

} // namespace

std::size_t envelope_bytes(const bridge_identity& self) {
  return envelope_overhead + self.cluster_id.size()
         + self.node_id.size() + self.addr.size();
}

std::size_t body_budget(const bridge_identity& self, const bridge_limits& limits) {
  auto size = limits.bundle_bytes == 0
                ? limits.max_datagram_bytes
                : std::min(limits.bundle_bytes, limits.max_datagram_bytes);
  auto overhead = envelope_bytes(self);
  // Ids so long that nothing fits: one item per message, each as small as
  // it can be.
  return size > overhead + 64 ? size - overhead : 64;
}

} // namespace dice
