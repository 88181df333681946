#include "membership/live_peers.hpp"

namespace dice {

bool live_peers::apply(const peer_change& c, const view_fn& view) {
  if (c.id.empty() || c.id == self_)
    return false;
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

} // namespace dice
