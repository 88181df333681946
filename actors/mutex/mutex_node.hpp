#pragma once
// What the mutex actor does, as a plain class: it feeds the algorithm the
// live members (from membership's peer changes) and the coordinator, decodes
// Mutex messages from the wire (counting bad ones), hands the algorithm's
// sends on by node id (the bridge knows where peers listen), and keeps the algorithm's requests and releases
// in step with what this node's owners (tasks, `dice lock` clients) need
// (lock_owners). No CAF, no clock.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "membership/live_peers.hpp"
#include "membership/node_view.hpp"
#include "mutex/lock_owners.hpp"
#include "mutex/mutex.hpp"

namespace dice {

/// One datagram to hand to the bridge: to a node id, or to everyone.
struct mutex_datagram {
  std::optional<std::string> to; // none: broadcast
  wire::Message message;
};

/// What GET /locks shows.
struct locks_view {
  std::string algorithm;
  std::vector<lock_info> cluster;        // as far as this node knows
  std::vector<lock_owners::row> local;   // this node's owners and waiters
  std::uint64_t granted = 0;
  std::uint64_t lost = 0;
  std::uint64_t ignored = 0;    // of another algorithm or kind
  std::uint64_t malformed = 0;  // no sender or no Mutex body
};

class mutex_node {
public:
  /// Throws std::invalid_argument as make_mutex does.
  mutex_node(const std::string& algorithm, std::string self_id, mutex_config cfg,
             std::shared_ptr<lock_owners> owners, millis idle_ms);

  /// Membership news: alive and suspect peers take part, dead ones do not.
  void on_peer(const peer_change& c, millis now);
  void on_coordinator(const std::string& c, millis now);
  void on_wire(const wire::Message& m, millis now);
  /// Timers, and what the owners need (after a want or a drop).
  void tick(millis now);
  std::optional<millis> next_deadline() const;

  std::vector<mutex_datagram> take_datagrams();
  /// (owner, resource) pairs: given to a waiting owner, or lost by one.
  std::vector<std::pair<std::string, std::string>> take_assigned();
  std::vector<std::pair<std::string, std::string>> take_lost();

  locks_view view() const;
  lock_owners& owners() { return *owners_; }

private:
  void settle(millis now);
  void after(millis now);

  std::string self_;
  std::unique_ptr<mutex_state> algo_;
  std::shared_ptr<lock_owners> owners_;
  millis idle_ms_;
  live_peers peers_; // alive and suspect peers
  std::vector<mutex_datagram> out_;
  std::vector<std::pair<std::string, std::string>> assigned_, lost_;
  std::optional<millis> settle_at_;
  std::uint64_t granted_ = 0;
  std::uint64_t lost_count_ = 0;
  std::uint64_t malformed_ = 0;
};

} // namespace dice
