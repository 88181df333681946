#include "membership/membership_state.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "common/endpoint.hpp"
#include "common/hashes.hpp"

namespace dice {

namespace {

/// "localhost:7400" and "127.0.0.1:7400" must match when resolving seeds.
std::string canonical_addr(const std::string& addr) {
  if (auto ep = parse_endpoint(addr))
    return ep->to_string();
  return addr;
}

wire::PeerState to_wire(peer_state state) {
  switch (state) {
    case peer_state::alive:
      return wire::ALIVE;
    case peer_state::suspect:
      return wire::SUSPECT;
    case peer_state::dead:
      break;
  }
  return wire::DEAD;
}

/// Escalation order of failure detection.
int severity(peer_state state) {
  return static_cast<int>(state);
}

} // namespace

const char* to_string(peer_state state) {
  switch (state) {
    case peer_state::alive:
      return "alive";
    case peer_state::suspect:
      return "suspect";
    case peer_state::dead:
      break;
  }
  return "dead";
}

std::string membership_config::problem() const {
  if (heartbeat_interval_ms <= 0)
    return "heartbeat interval must be positive";
  // Otherwise a healthy peer would be suspected between two heartbeats.
  if (suspect_after_ms <= heartbeat_interval_ms)
    return "suspect-after must be longer than the heartbeat interval";
  if (dead_after_ms <= suspect_after_ms)
    return "dead-after must be longer than suspect-after";
  if (failure_check_ms <= 0 || failure_check_ms > heartbeat_interval_ms)
    return "failure check interval must be positive and at most the heartbeat interval";
  if (forget_dead_after_ms < 0)
    return "forget-dead-after must not be negative";
  if (gossip_peers_per_heartbeat == 0)
    return "gossip peers per heartbeat must be at least 1";
  return {};
}

membership_state::membership_state(std::string self_id, std::string self_addr,
                                   std::uint64_t incarnation,
                                   membership_config cfg)
  : self_id_(std::move(self_id)),
    self_addr_(canonical_addr(self_addr)),
    incarnation_(incarnation),
    cfg_(cfg),
    // One period late is scheduling noise on a busy machine.
    pauses_(2 * cfg.failure_check_ms) {
  if (self_id_.empty())
    throw std::invalid_argument("membership: node id must not be empty");
  if (auto why = cfg_.problem(); !why.empty())
    throw std::invalid_argument("membership: " + why);
  super_peers_ = super_peer_machine{cfg_.super_peers};
  elect_super_peers(); // alone, a node serves itself
}

void membership_state::add_seed(const std::string& addr) {
  auto canonical = canonical_addr(addr);
  if (canonical.empty() || canonical == self_addr_)
    return;
  if (seeds_.insert(std::move(canonical)).second)
    ++directory_version_;
}

// -- inputs -------------------------------------------------------------------

bool membership_state::hear_directly(const wire::Message& m, millis now,
                                     std::vector<peer_change>& changes) {
  if (m.sender_id().empty() || m.sender_addr().empty())
    return false;
  auto addr = canonical_addr(m.sender_addr());
  if (m.sender_id() == self_id_) {
    // Our own datagram looped back is harmless; anyone else is misconfigured.
    if (addr != self_addr_ || m.incarnation() != incarnation_)
      ++counters_.conflicting_ids;
    return false;
  }
  auto [it, added] = peers_.try_emplace(m.sender_id());
  auto& peer = it->second;
  // Another address under the id of a peer heard lately: the peer
  // restarted elsewhere, or a second node was started with its id. Its
  // words wait until the peer falls silent (suspect: a restart) or speaks
  // again (a clash: the one heard first keeps the id, the newcomer is
  // told to stop).
  if (!added && addr != peer.addr && peer.state == peer_state::alive) {
    if (peer.contender != addr) {
      peer.contender = std::move(addr);
      peer.clash = false;
    } else if (peer.clash) {
      refuse_contender(m.sender_id(), peer); // it has not stopped yet
    }
    return false;
  }
  if (!added && addr == peer.addr && !peer.contender.empty() && !peer.clash) {
    peer.clash = true;
    refuse_contender(m.sender_id(), peer);
  }
  if (added) {
    peer = peer_entry{std::move(addr), peer_state::alive, m.incarnation(), now};
    peer.heard_directly = true;
    peer.last_heard_ms = now;
    changes.push_back({it->first, peer.addr, peer_state::dead,
                       peer_state::alive, peer.incarnation, true, false,
                       false});
    return true;
  }
  if (m.incarnation() < peer.incarnation) {
    ++counters_.stale_messages;
    return false;
  }
  auto from = peer.state;
  bool restarted = m.incarnation() > peer.incarnation;
  if (addr != peer.addr)
    peer.contender.clear(); // it was a restart elsewhere
  peer.addr = std::move(addr);
  peer.incarnation = m.incarnation();
  peer.state = peer_state::alive;
  peer.last_seen_ms = now;
  peer.last_heard_ms = now;
  if (!peer.heard_directly) {
    peer.heard_directly = true; // reachable: it may serve now
    super_peers_stale_ = true;
  }
  if (restarted || from != peer_state::alive)
    changes.push_back({it->first, peer.addr, from, peer_state::alive,
                       peer.incarnation, false, restarted, false});
  return true;
}

void membership_state::merge_gossip(
  const google::protobuf::RepeatedPtrField<wire::Peer>& peers, millis now,
  std::vector<peer_change>& changes) {
  // Gossip lists peers in id order, mostly the ones we know too: try the
  // entry after the previous match before searching the whole table.
  auto previous = peers_.end();
  for (const auto& gossiped : peers) {
    if (gossiped.id().empty() || gossiped.addr().empty()
        || gossiped.id() == self_id_)
      continue;
    bool says_alive = gossiped.state() == wire::ALIVE;
    auto it = previous == peers_.end() ? peers_.end() : std::next(previous);
    if (it == peers_.end() || it->first != gossiped.id())
      it = peers_.find(gossiped.id());
    previous = it;
    if (it == peers_.end()) {
      if (!says_alive)
        continue;
      // Grace period: it must reach us directly before it counts as silent.
      auto& peer = peers_[gossiped.id()];
      peer = peer_entry{canonical_addr(gossiped.addr()), peer_state::alive,
                        gossiped.incarnation(), now};
      changes.push_back({gossiped.id(), peer.addr, peer_state::dead,
                         peer_state::alive, peer.incarnation, true, false,
                         false});
      continue;
    }
    auto& peer = it->second;
    if (gossiped.incarnation() == peer.incarnation && says_alive
        && gossiped.has_heard_ms_ago()) {
      vouched(it->first, peer, gossiped, now, changes);
      continue;
    }
    // Same or older news never revives: only the node itself can do that.
    if (gossiped.incarnation() <= peer.incarnation)
      continue;
    auto from = peer.state;
    peer.incarnation = gossiped.incarnation();
    peer.addr = canonical_addr(gossiped.addr());
    peer.heard_directly = false; // this incarnation is only hearsay yet
    if (says_alive || gossiped.state() == wire::SUSPECT) {
      peer.state = peer_state::alive;
      peer.last_seen_ms = now;
    }
    changes.push_back({it->first, peer.addr, from, peer.state,
                       peer.incarnation, false, true, false});
  }
}

void membership_state::vouched(const std::string& id, peer_entry& peer,
                               const wire::Peer& gossiped, millis now,
                               std::vector<peer_change>& changes) {
  // A dead peer stays dead until it speaks itself: the voucher may not
  // have judged it yet, and a verdict, once out, is acted on.
  if (peer.state == peer_state::dead)
    return;
  auto heard = now - static_cast<millis>(gossiped.heard_ms_ago());
  if (heard <= peer.last_seen_ms)
    return;
  peer.last_seen_ms = heard;
  // Suspected for its silence to us, but lately heard by the voucher.
  if (peer.state == peer_state::suspect && now - heard < cfg_.suspect_after_ms) {
    peer.state = peer_state::alive;
    changes.push_back({id, peer.addr, peer_state::suspect, peer_state::alive,
                       peer.incarnation, false, false, false});
  }
}

std::vector<peer_change> membership_state::on_heartbeat(const wire::Message& m,
                                                        millis now) {
  std::vector<peer_change> changes;
  if (hear_directly(m, now, changes)) {
    if (m.heartbeat().has_info()) {
      const auto& info = m.heartbeat().info();
      super_peer_capacity said{info.slots(), info.battery(), info.device_class()};
      auto& known = peers_.at(m.sender_id()).capacity;
      if (!(known == said)) {
        known = said;
        super_peers_stale_ = true;
      }
    }
    auto& through = peers_.at(m.sender_id()).relays_through;
    if (through != m.heartbeat().super_peer()) {
      through = m.heartbeat().super_peer();
      super_peers_stale_ = true;
    }
    merge_gossip(m.heartbeat().peers(), now, changes);
  }
  if (!changes.empty()) {
    super_peers_stale_ = true;
    ++directory_version_;
  }
  elect_super_peers();
  return changes;
}

std::vector<peer_change> membership_state::on_connect(const wire::Message& m,
                                                      millis now,
                                                      wire::Message* reply) {
  std::vector<peer_change> changes;
  bool heard = hear_directly(m, now, changes);
  if (!changes.empty()) {
    super_peers_stale_ = true;
    ++directory_version_;
  }
  elect_super_peers();
  if (!heard || reply == nullptr)
    return changes;
  auto* rep = reply->mutable_connect_rep();
  rep->clear_peers();
  auto add = [rep](const std::string& id, const std::string& addr,
                   std::uint64_t incarnation, peer_state state) {
    auto* p = rep->add_peers();
    p->set_id(id);
    p->set_addr(addr);
    p->set_incarnation(incarnation);
    p->set_state(to_wire(state));
  };
  add(self_id_, self_addr_, incarnation_, peer_state::alive);
  // Bounded like a heartbeat so the reply fits one datagram; a joiner learns
  // the rest from heartbeat gossip.
  std::size_t listed = 0;
  for (const auto& [id, peer] : peers_) {
    if (listed == cfg_.gossip_peers_per_heartbeat)
      break;
    if (peer.state == peer_state::dead || id == m.sender_id())
      continue;
    add(id, peer.addr, peer.incarnation, peer.state);
    ++listed;
  }
  return changes;
}

std::vector<peer_change>
membership_state::on_connect_rep(const wire::Message& m, millis now) {
  std::vector<peer_change> changes;
  if (hear_directly(m, now, changes))
    merge_gossip(m.connect_rep().peers(), now, changes);
  if (!changes.empty()) {
    super_peers_stale_ = true;
    ++directory_version_;
  }
  elect_super_peers();
  return changes;
}

std::optional<std::string>
membership_state::on_id_in_use(const wire::Message& m) const {
  const auto& notice = m.id_in_use();
  if (notice.id() != self_id_ || canonical_addr(notice.holder_addr()) == self_addr_)
    return std::nullopt;
  return "node id '" + self_id_ + "' is in use by a live node at "
         + notice.holder_addr() + " (said " + m.sender_id()
         + "); give this node another --id, or stop that one first";
}

void membership_state::refuse_contender(const std::string& id,
                                        const peer_entry& peer) {
  ++counters_.ids_refused;
  refusals_.push_back({id, peer.contender, peer.addr});
}

std::vector<id_refusal> membership_state::take_refusals() {
  return std::exchange(refusals_, {});
}

membership_counters membership_state::counters() const {
  auto c = counters_;
  c.pauses = pauses_.pauses();
  return c;
}

std::vector<peer_change> membership_state::tick(millis now) {
  std::vector<peer_change> changes;
  if (auto paused = pauses_.gap(now); paused > 0)
    for (auto& [id, peer] : peers_) {
      peer.last_seen_ms += paused;
      peer.last_heard_ms += paused;
    }
  for (auto it = peers_.begin(); it != peers_.end();) {
    auto& [id, peer] = *it;
    auto silent = now - peer.last_seen_ms;
    if (silent >= cfg_.dead_after_ms + cfg_.forget_dead_after_ms) {
      changes.push_back({id, peer.addr, peer.state, peer_state::dead,
                         peer.incarnation, false, false, true});
      it = peers_.erase(it);
      continue;
    }
    auto judged = silent >= cfg_.dead_after_ms      ? peer_state::dead
                  : silent >= cfg_.suspect_after_ms ? peer_state::suspect
                                                    : peer_state::alive;
    if (severity(judged) > severity(peer.state)) {
      changes.push_back({id, peer.addr, peer.state, judged, peer.incarnation,
                         false, false, false});
      peer.state = judged;
    }
    ++it;
  }
  if (!changes.empty()) {
    super_peers_stale_ = true;
    ++directory_version_;
  }
  elect_super_peers();
  return changes;
}

bool membership_state::heartbeat_due(millis now) {
  if (now < next_heartbeat_)
    return false;
  next_heartbeat_ += cfg_.heartbeat_interval_ms;
  if (next_heartbeat_ <= now) // far behind (the first call, or a stall)
    next_heartbeat_ = now + cfg_.heartbeat_interval_ms;
  return true;
}

// -- outputs ------------------------------------------------------------------

wire::Message membership_state::make_heartbeat(millis now) {
  wire::Message m;
  auto* hb = m.mutable_heartbeat();
  hb->set_super_peer(relay_.super_peer);
  auto gossip = [hb, now, this](const std::string& id, const peer_entry& peer) {
    auto* p = hb->add_peers();
    p->set_id(id);
    p->set_addr(peer.addr);
    p->set_incarnation(peer.incarnation);
    p->set_state(to_wire(peer.state));
    // Only what we heard ourselves, and only while it counts: a vouch
    // passed on would carry the delay of every hop as freshness.
    auto ago = now - peer.last_heard_ms;
    if (peer.state != peer_state::dead && peer.heard_directly && ago >= 0
        && ago < cfg_.dead_after_ms)
      p->set_heard_ms_ago(static_cast<std::uint32_t>(ago));
  };
  auto limit = cfg_.gossip_peers_per_heartbeat;
  if (peers_.size() <= limit) {
    for (const auto& [id, peer] : peers_)
      gossip(id, peer);
    return m;
  }
  // The next `limit` peers of this node's walk, after the last one
  // gossiped, so every peer gets its turn even as the table changes. Each
  // node walks in an order of its own (a hash of the pair): walking in id
  // order, nodes that formed together stayed in step and all listed the
  // same peers in the same heartbeat, so each peer was vouched for in one
  // burst per cycle and hardly in between (128 nodes at 20% loss: 21
  // wrong dead verdicts in one run, each in such a gap).
  using step = std::pair<std::uint64_t, peer_table::const_iterator>;
  std::vector<step> ahead, behind; // after the cursor; from the start again
  for (auto it = peers_.cbegin(); it != peers_.cend(); ++it) {
    auto key = rendezvous_hash(it->first, self_id_);
    (key > gossip_cursor_ ? ahead : behind).emplace_back(key, it);
  }
  auto by_key = [](const step& a, const step& b) {
    return a.first != b.first ? a.first < b.first : a.second->first < b.second->first;
  };
  auto first = [&](std::vector<step>& v, std::size_t n) {
    n = std::min(n, v.size());
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), v.end(), by_key);
    v.resize(n);
  };
  first(ahead, limit);
  first(behind, limit - ahead.size());
  gossip_cursor_ = behind.empty() ? ahead.back().first : behind.back().first;
  // Listed in id order, as the receiver's merge expects.
  ahead.insert(ahead.end(), behind.begin(), behind.end());
  std::sort(ahead.begin(), ahead.end(), [](const step& a, const step& b) {
    return a.second->first < b.second->first;
  });
  for (const auto& [key, it] : ahead)
    gossip(it->first, it->second);
  return m;
}

bool membership_state::seed_resolved(const std::string& addr) const {
  return std::any_of(peers_.begin(), peers_.end(), [&](const auto& kv) {
    return kv.second.addr == addr && kv.second.state == peer_state::alive;
  });
}

std::vector<std::string> membership_state::seeds_to_connect() const {
  std::vector<std::string> result;
  for (const auto& seed : seeds_)
    if (!seed_resolved(seed))
      result.push_back(seed);
  return result;
}

std::vector<std::string> membership_state::heartbeat_targets() const {
  std::set<std::string> targets;
  for (const auto& [id, peer] : peers_)
    targets.insert(peer.addr);
  for (const auto& seed : seeds_to_connect())
    targets.insert(seed);
  targets.erase(self_addr_);
  return {targets.begin(), targets.end()};
}

std::map<std::string, std::string> membership_state::addresses() const {
  std::map<std::string, std::string> out;
  for (const auto& [id, peer] : peers_)
    out.emplace(id, peer.addr);
  return out;
}

std::vector<std::string> membership_state::broadcast_targets() const {
  std::set<std::string> targets;
  for (const auto& [id, peer] : peers_)
    if (peer.state != peer_state::dead)
      targets.insert(peer.addr);
  targets.erase(self_addr_);
  return {targets.begin(), targets.end()};
}

std::vector<node_view> membership_state::view(millis now) const {
  std::vector<node_view> rows;
  rows.reserve(peers_.size() + 1);
  rows.push_back({self_id_, self_addr_, peer_state::alive, incarnation_, 0});
  for (const auto& [id, peer] : peers_)
    rows.push_back({id, peer.addr, peer.state, peer.incarnation,
                    now - peer.last_seen_ms});
  const auto& elected = super_peers_.current();
  for (auto& row : rows) {
    row.super_peer = elected.is_super_peer(row.id);
    row.attached_to = elected.super_peer_of(row.id);
  }
  return rows;
}

std::vector<peer_change> membership_state::known_peers() const {
  std::vector<peer_change> out;
  for (const auto& [id, peer] : peers_)
    if (peer.state != peer_state::dead)
      out.push_back({id, peer.addr, peer_state::dead, peer.state,
                     peer.incarnation, true, false, false});
  return out;
}

std::vector<std::string> membership_state::live_ids() const {
  std::vector<std::string> ids{self_id_};
  for (const auto& [id, peer] : peers_)
    if (peer.state == peer_state::alive)
      ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::optional<peer_state>
membership_state::state_of(const std::string& id) const {
  if (id == self_id_)
    return peer_state::alive;
  if (auto it = peers_.find(id); it != peers_.end())
    return it->second.state;
  return std::nullopt;
}

// -- the super-peer election ---------------------------------------------------

void membership_state::set_self_capacity(const wire::NodeInfo& info) {
  super_peer_capacity said{info.slots(), info.battery(), info.device_class()};
  if (said == self_capacity_)
    return;
  self_capacity_ = said;
  super_peers_stale_ = true;
  elect_super_peers();
}

void membership_state::elect_super_peers() {
  // Off, nothing to keep current: every heartbeat passes here.
  if (!super_peers_stale_ || cfg_.super_peers.mode == super_peer_mode::off)
    return;
  super_peers_stale_ = false;
  auto before = relay_;
  elect_now();
  if (!(relay_ == before))
    ++directory_version_;
}

void membership_state::elect_now() {
  std::vector<super_peer_candidate> live;
  live.reserve(peers_.size() + 1);
  live.push_back({self_id_, true, self_capacity_});
  for (const auto& [id, peer] : peers_)
    if (peer.state != peer_state::dead)
      live.push_back({id, peer.heard_directly, peer.capacity});
  const auto& elected = super_peers_.update(std::move(live));
  relay_ = {};
  auto mine = elected.super_peer_of(self_id_);
  if (mine.empty())
    return;
  // A suspected super-peer keeps its members until it is found dead: on a
  // lossy network suspicion comes and goes, and every change of whom a
  // node relays through leaves views apart for a heartbeat or two.
  relay_.super_peer = mine;
  // Views may differ (one that started later attaches some members
  // elsewhere; views of a changing cluster differ for a while). What peers
  // say in their heartbeats closes the gap: a super-peer passes on to every
  // node that says it relays through it, and to every node some peer says
  // it relays through, so each node hears what it chose to hear through.
  std::set<std::string> serving(elected.super_peers.begin(),
                                elected.super_peers.end());
  std::set<std::string> attached;
  if (mine == self_id_)
    for (const auto& [member, to] : elected.attached_to)
      if (to == self_id_ && member != self_id_)
        attached.insert(member);
  for (const auto& [id, peer] : peers_) {
    if (peer.state == peer_state::dead || peer.relays_through.empty())
      continue;
    serving.insert(peer.relays_through);
    if (peer.relays_through == self_id_)
      attached.insert(id);
  }
  serving.erase(self_id_);
  relay_.super_peers.assign(serving.begin(), serving.end());
  relay_.attached.assign(attached.begin(), attached.end());
}

} // namespace dice
