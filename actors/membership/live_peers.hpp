#pragma once
// The peers a protocol subsystem talks to, from membership's changes: the
// live ones (alive or suspect; dead and forgotten ones are not), by id
// (the bridge alone knows where they listen). A restart is a failure and a recovery: whatever the old
// incarnation took part in is lost, so the subsystem sees the peer leave and
// come back. Plain class, no CAF.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "membership/node_view.hpp"

namespace dice {

class live_peers {
public:
  /// Sees the live set (self excluded) each time it changes.
  using view_fn = std::function<void(const std::vector<std::string>&)>;

  explicit live_peers(std::string self) : self_(std::move(self)) {}

  /// Applies a change; calls `view` once if the live set changed, twice for
  /// the restart of a live peer (without it, then with it). False if the
  /// set did not change (nor was left and rejoined).
  bool apply(const peer_change& c, const view_fn& view);
  std::vector<std::string> ids() const { return {live_.begin(), live_.end()}; }

private:
  std::string self_;
  std::set<std::string> live_;
};

} // namespace dice
