#pragma once
// Where each peer listens: the one map from node ids to HOST:PORT, kept by
// the broadcast bridge. Membership's view wins (it settles a clash of two
// nodes claiming one id); an id membership does not list yet resolves to
// the address its authenticated datagrams come from, so an answer reaches a
// sender before membership has heard of it. Broadcasts fan out to every
// member and every seed not yet resolved; with super-peers elected, the
// queue's go by relays() instead (relay_routes.hpp). Plain class, no CAF.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broadcast_bridge/relay_routes.hpp"

namespace dice {

/// Membership's view as the bridge takes it.
struct peer_directory {
  std::map<std::string, std::string> members; // id -> address, self excluded
  std::vector<std::string> seeds;              // addresses with no id yet
  relay_view relay;                            // empty: broadcasts go direct
  bool operator==(const peer_directory& o) const {
    return members == o.members && seeds == o.seeds && relay == o.relay;
  }
  bool operator!=(const peer_directory& o) const { return !(*this == o); }
};

class peer_addresses {
public:
  /// `self_addr` is never a broadcast target; `max_heard` bounds the ids
  /// learned from datagrams alone (the oldest is forgotten first).
  explicit peer_addresses(std::string self_id, std::string self_addr = {},
                          std::size_t max_heard = 1024);

  /// Membership's view replaces the previous one.
  void set_members(peer_directory d);
  /// A received datagram's header: `id` sends from `addr`.
  void heard(const std::string& id, const std::string& addr);
  /// Where `id` listens; nullopt if neither membership nor a datagram said.
  std::optional<std::string> resolve(const std::string& id) const;
  /// Where a broadcast goes: members and unresolved seeds, sorted, once each.
  const std::vector<std::string>& targets() const { return targets_; }
  /// Where queue broadcasts go through super-peers (inactive: direct).
  const relay_routes& relays() const { return relays_; }

private:
  std::string self_id_, self_addr_;
  std::size_t max_heard_;
  peer_directory members_;
  std::map<std::string, std::string> heard_; // ids membership does not list
  std::vector<std::string> heard_order_;     // oldest first, for the bound
  std::vector<std::string> targets_;
  relay_routes relays_;
};

} // namespace dice
