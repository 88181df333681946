#include "broadcast_bridge/relay_routes.hpp"

#include <algorithm>

namespace dice {

namespace {

std::vector<std::string> without(const std::vector<std::string>& xs,
                                 const std::string& addr) {
  std::vector<std::string> out;
  out.reserve(xs.size());
  std::copy_if(xs.begin(), xs.end(), std::back_inserter(out),
               [&](const std::string& x) { return x != addr; });
  return out;
}

// A node in two groups gets one copy, with the mark that asks more of it:
// the copy that arrives first is the one it takes.
void keep_strongest(relay_fan_out& f) {
  auto in = [](const std::vector<std::string>& xs, const std::string& x) {
    return std::find(xs.begin(), xs.end(), x) != xs.end();
  };
  auto& p = f.relayed;
  p.erase(std::remove_if(p.begin(), p.end(), [&](const std::string& a) {
            return in(f.first_hand, a) || in(f.to_members, a);
          }), p.end());
  auto& t = f.to_members;
  t.erase(std::remove_if(t.begin(), t.end(),
                         [&](const std::string& a) { return in(f.first_hand, a); }),
          t.end());
}

void add(std::vector<std::string>& to, const std::string& addr) {
  if (!addr.empty() && std::find(to.begin(), to.end(), addr) == to.end())
    to.push_back(addr);
}

} // namespace

void relay_routes::set(const relay_view& view,
                       const std::function<std::string(const std::string&)>& where,
                       const std::vector<std::string>& everyone) {
  view_ = view;
  everyone_ = everyone;
  super_peer_addr_ = view.super_peer.empty() || view.super_peer == self_id_
                       ? std::string{}
                       : where(view.super_peer);
  others_.clear();
  for (const auto& id : view.super_peers)
    if (id != self_id_)
      add(others_, where(id));
  members_.clear();
  for (const auto& id : view.attached)
    if (id != self_id_)
      add(members_, where(id));
  plan_own();
}

void relay_routes::plan_own() {
  own_ = {};
  if (view_.super_peer == self_id_) {
    own_.relayed = members_;
    own_.to_members = others_;
  } else if (!super_peer_addr_.empty()) {
    // Its super-peer, and the next super-peer after it as a second way in:
    // a relayed copy crosses three links, and one datagram lost on the
    // first would keep it from everyone.
    own_.first_hand = {super_peer_addr_};
    auto at = std::find(others_.begin(), others_.end(), super_peer_addr_);
    auto next = at == others_.end() || at + 1 == others_.end() ? others_.begin() : at + 1;
    if (next != others_.end() && *next != super_peer_addr_)
      own_.first_hand.push_back(*next);
    // Named by peers without being elected here: they hear it from here.
    own_.relayed = members_;
  }
  keep_strongest(own_);
  active_ = own_.datagrams() > 0 || view_.super_peer == self_id_;
}

relay_fan_out relay_routes::pass_on(relay_mark mark,
                                    const std::string& origin_addr) const {
  relay_fan_out out;
  if (mark == relay_mark::none)
    return out;
  if (!serves()) {
    // Some peer takes this node for a super-peer (views differ for a
    // while). With the election off here (no view), to everyone. Else a
    // first-hand copy it passes to the super-peers it knows, doing its
    // origin's super-peer's work; a copy for its members it only reads:
    // whoever relays through it is not in its view, and anti-entropy is
    // cheaper than a flood on every stale view.
    if (mark == relay_mark::relayed)
      return out;
    if (others_.empty())
      out.direct = without(everyone_, origin_addr);
    else if (mark == relay_mark::first_hand)
      out.to_members = without(others_, origin_addr);
    return out;
  }
  out.relayed = without(members_, origin_addr);
  if (mark == relay_mark::first_hand)
    out.to_members = without(others_, origin_addr);
  keep_strongest(out);
  return out;
}

} // namespace dice
