#include "broadcast_bridge/peer_addresses.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace dice {

peer_addresses::peer_addresses(std::string self_id, std::string self_addr,
                               std::size_t max_heard)
  : self_id_(std::move(self_id)),
    self_addr_(std::move(self_addr)),
    max_heard_(max_heard),
    relays_(self_id_) {}

void peer_addresses::set_members(peer_directory d) {
  members_ = std::move(d);
  members_.members.erase(self_id_);
  std::set<std::string> targets(members_.seeds.begin(), members_.seeds.end());
  for (const auto& [id, addr] : members_.members)
    if (!addr.empty())
      targets.insert(addr);
  targets.erase(self_addr_);
  targets.erase(std::string{});
  targets_.assign(targets.begin(), targets.end());
  relays_.set(
    members_.relay,
    [this](const std::string& id) { return resolve(id).value_or(std::string{}); },
    targets_);
}

void peer_addresses::heard(const std::string& id, const std::string& addr) {
  if (id.empty() || addr.empty() || id == self_id_)
    return;
  auto [at, added] = heard_.insert_or_assign(id, addr);
  (void) at;
  if (!added)
    return;
  heard_order_.push_back(id);
  if (heard_order_.size() > max_heard_) {
    heard_.erase(heard_order_.front());
    heard_order_.erase(heard_order_.begin());
  }
}

std::optional<std::string> peer_addresses::resolve(const std::string& id) const {
  if (auto m = members_.members.find(id);
      m != members_.members.end() && !m->second.empty())
    return m->second;
  if (auto h = heard_.find(id); h != heard_.end())
    return h->second;
  return std::nullopt;
}

} // namespace dice
