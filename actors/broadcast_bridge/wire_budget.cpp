#include "broadcast_bridge/wire_budget.hpp"

#include <algorithm>

namespace dice {

std::size_t envelope_bytes(const bridge_identity& self) {
  return defaults::envelope_overhead + self.cluster_id.size()
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
