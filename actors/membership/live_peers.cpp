#include "membership/live_peers.hpp"

namespace dice {

bool live_peers::apply(const peer_change& c, const view_fn& view) {
  if (c.id.empty() || c.id == self_)
    return false;
  learn(c.id, c.addr);
  bool live = c.to != peer_state::dead && !c.forgotten;
  bool changed = live ? live_.insert(c.id).second : live_.erase(c.id) > 0;
  if (c.restarted && live && !changed) {
    live_.erase(c.id);
    view(ids());
    live_.insert(c.id);
    changed = true;
  }
  if (changed)
    view(ids());
  return changed;
}

void live_peers::learn(const std::string& id, const std::string& addr) {
  if (!id.empty() && !addr.empty())
    addr_[id] = addr;
}

std::optional<std::string> live_peers::addr_of(const std::string& id) const {
  auto it = addr_.find(id);
  if (it == addr_.end())
    return std::nullopt;
  return it->second;
}

} // namespace dice
