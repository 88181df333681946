// Super-peer relaying as the bridge routes it: where a node's own queue
// broadcast goes, where a marked datagram goes on, and, over whole
// clusters of routing tables, that every broadcast reaches every node.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <set>

#include "broadcast_bridge/peer_addresses.hpp"

using namespace dice;

using strings = std::vector<std::string>;

namespace {

std::string addr_of(const std::string& id) { return "10.0.0." + id.substr(1) + ":7400"; }

// Node `self`'s table: every other node of `ids` a member, `relay` its view.
peer_addresses table(const std::string& self, const strings& ids, relay_view relay) {
  peer_addresses p(self, addr_of(self));
  peer_directory d;
  for (const auto& id : ids)
    d.members[id] = addr_of(id);
  d.relay = std::move(relay);
  p.set_members(std::move(d));
  return p;
}

struct delivery {
  std::map<std::string, int> got; // node address -> copies received
  std::size_t datagrams = 0;      // copies sent, origin included
  std::size_t by_origin = 0;      // copies the origin sent
};

// Sends one broadcast of `origin` through the tables, as the bridges would:
// a node takes a copy once (the replay window drops the rest) and passes
// on a marked one it took.
delivery broadcast(const std::map<std::string, peer_addresses>& tables,
                   const std::string& origin) {
  std::map<std::string, std::string> id_at;
  for (const auto& [id, t] : tables)
    id_at[addr_of(id)] = id;
  delivery out;
  std::deque<std::pair<std::string, relay_mark>> wire;
  auto send = [&](const relay_fan_out& f) {
    for (const auto& a : f.relayed)
      wire.emplace_back(a, relay_mark::relayed);
    for (const auto& a : f.direct)
      wire.emplace_back(a, relay_mark::none);
    for (const auto& a : f.first_hand)
      wire.emplace_back(a, relay_mark::first_hand);
    for (const auto& a : f.to_members)
      wire.emplace_back(a, relay_mark::to_members);
    out.datagrams += f.datagrams();
  };
  const auto& own = tables.at(origin).relays();
  send(own.active() ? own.own() : relay_fan_out{{}, {}, {}, tables.at(origin).targets()});
  out.by_origin = out.datagrams;
  while (!wire.empty()) {
    auto [to, mark] = wire.front();
    wire.pop_front();
    if (++out.got[to] > 1 || to == addr_of(origin))
      continue;
    send(tables.at(id_at.at(to)).relays().pass_on(mark, addr_of(origin)));
  }
  return out;
}

strings ids_of(std::size_t n) {
  strings ids;
  for (std::size_t i = 1; i <= n; ++i)
    ids.push_back("n" + std::to_string(i));
  return ids;
}

} // namespace

TEST_CASE("relay routes: a member sends to its super-peer and the next one, "
          "a super-peer to its members and the other super-peers",
          "[bridge][relay]") {
  strings ids = {"n1", "n2", "n3", "n4", "n5"};
  // n1 and n2 serve; n3 and n4 are n1's, n5 is n2's.
  auto member = table("n3", ids, {"n1", {"n1", "n2"}, {}});
  REQUIRE(member.relays().active());
  // Its super-peer, and the next one as a second way in.
  CHECK(member.relays().own().first_hand == strings{addr_of("n1"), addr_of("n2")});
  CHECK(table("n5", ids, {"n2", {"n1", "n2"}, {}}).relays().own().first_hand
        == strings{addr_of("n2"), addr_of("n1")});
  CHECK(table("n5", ids, {"n2", {"n2"}, {}}).relays().own().first_hand
        == strings{addr_of("n2")});
  CHECK(member.relays().own().relayed.empty());
  CHECK(member.relays().own().to_members.empty());

  auto sp = table("n1", ids, {"n1", {"n2"}, {"n3", "n4"}});
  REQUIRE(sp.relays().serves());
  CHECK(sp.relays().own().relayed == strings{addr_of("n3"), addr_of("n4")});
  CHECK(sp.relays().own().to_members == strings{addr_of("n2")});
  // First-hand from n3: to n4 and n2, never back to n3.
  auto on = sp.relays().pass_on(relay_mark::first_hand, addr_of("n3"));
  CHECK(on.relayed == strings{addr_of("n4")});
  CHECK(on.to_members == strings{addr_of("n2")});
  // From a super-peer: to its own members only.
  on = sp.relays().pass_on(relay_mark::to_members, addr_of("n5"));
  CHECK(on.relayed == strings{addr_of("n3"), addr_of("n4")});
  CHECK(on.to_members.empty());
  // A relayed copy: a member reads it only; a super-peer passes it to its
  // members (views differ: it may be the first copy it gets).
  CHECK(member.relays().pass_on(relay_mark::relayed, addr_of("n1")).datagrams() == 0);
  CHECK(sp.relays().pass_on(relay_mark::relayed, addr_of("n5")).relayed
        == strings{addr_of("n3"), addr_of("n4")});
  // Sent direct (membership's heartbeats, say): read only, by anyone.
  CHECK(sp.relays().pass_on(relay_mark::none, addr_of("n5")).datagrams() == 0);
}

TEST_CASE("relay routes: no view, or a super-peer whose address is unknown, "
          "means direct broadcasts",
          "[bridge][relay]") {
  strings ids = {"n1", "n2"};
  CHECK_FALSE(table("n2", ids, {}).relays().active());
  CHECK_FALSE(table("n2", ids, {"n7", {}, {}}).relays().active());
}

TEST_CASE("relay routes: a node its origin takes for its super-peer, that "
          "does not serve in its own view, passes the datagram to the "
          "super-peers it knows, or, with the election off, to everyone",
          "[bridge][relay]") {
  strings ids = {"n1", "n2", "n3", "n4", "n5"};
  // n2 relays through n1; n5 serves too; nobody names n2.
  auto member = table("n2", ids, {"n1", {"n1", "n5"}, {}});
  REQUIRE_FALSE(member.relays().serves());
  auto on = member.relays().pass_on(relay_mark::first_hand, addr_of("n3"));
  CHECK(on.to_members == strings{addr_of("n1"), addr_of("n5")});
  CHECK(on.datagrams() == 2);
  // A copy for its members, or a relayed one: it has none, it reads it.
  CHECK(member.relays().pass_on(relay_mark::to_members, addr_of("n3")).datagrams() == 0);
  CHECK(member.relays().pass_on(relay_mark::relayed, addr_of("n3")).datagrams() == 0);
  // With the election off (no view): to everyone but the origin.
  auto off = table("n2", ids, {});
  CHECK(off.relays().pass_on(relay_mark::first_hand, addr_of("n3")).direct
        == strings{addr_of("n1"), addr_of("n4"), addr_of("n5")});
  CHECK(off.relays().pass_on(relay_mark::to_members, addr_of("n3")).direct
        == strings{addr_of("n1"), addr_of("n4"), addr_of("n5")});
  CHECK(off.relays().pass_on(relay_mark::relayed, addr_of("n3")).datagrams() == 0);
}

TEST_CASE("relay routes: with one agreed election every broadcast of 64 "
          "nodes reaches each node, super-peers twice from a member's two "
          "ways in, and a member sends two datagrams",
          "[bridge][relay]") {
  auto ids = ids_of(64);
  strings sps = {"n1", "n9", "n17", "n25", "n33", "n41", "n49", "n57"};
  std::map<std::string, std::string> sp_of;
  for (std::size_t i = 0; i < ids.size(); ++i)
    sp_of[ids[i]] = sps[i / 8];
  std::map<std::string, peer_addresses> tables;
  for (const auto& id : ids) {
    relay_view v{sp_of[id], {}, {}};
    for (const auto& s : sps)
      if (s != id)
        v.super_peers.push_back(s);
    if (sp_of[id] == id)
      for (const auto& m : ids)
        if (m != id && sp_of[m] == id)
          v.attached.push_back(m);
    tables.emplace(id, table(id, ids, v));
  }
  for (const auto& origin : {std::string("n1"), std::string("n2"), std::string("n64")}) {
    auto d = broadcast(tables, origin);
    bool member = sp_of[origin] != origin;
    for (const auto& id : ids) {
      if (id == origin)
        continue;
      // Every super-peer hears a member's broadcast twice, through both
      // ways in; everyone else once.
      bool twice = member && std::find(sps.begin(), sps.end(), id) != sps.end();
      CAPTURE(origin, id);
      CHECK(d.got[addr_of(id)] == (twice ? 2 : 1));
    }
    // N-1 copies from a super-peer; from a member, 8 more: its second
    // datagram, and the second way in passes it to the 7 other super-peers.
    CHECK(d.datagrams == ids.size() - 1 + (member ? 8u : 0u));
    CHECK(d.by_origin == (member ? 2u : 7u + 7u));
  }
}

TEST_CASE("relay routes: whatever the views, once super-peers heard whom "
          "each node relays through, every broadcast reaches each such node",
          "[bridge][relay]") {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    auto n = 3 + rng() % 30;
    auto ids = ids_of(n);
    // Each node has its own election: some super-peers (or none: direct),
    // itself attached to one of them, members attached at random.
    std::map<std::string, relay_view> views;
    for (const auto& id : ids) {
      relay_view v;
      if (rng() % 5 == 0) {
        views[id] = v; // off, or its super-peer in doubt
        continue;
      }
      std::set<std::string> elected;
      for (std::size_t k = 1 + rng() % 4; k > 0; --k)
        elected.insert(ids[rng() % n]);
      strings es(elected.begin(), elected.end());
      v.super_peer = es[rng() % es.size()];
      if (rng() % 4 == 0 && !elected.count(id))
        v.super_peer = id; // it thinks it serves; nobody else does
      for (const auto& m : ids)
        if (m != id && rng() % 2 == 0 && v.super_peer == id)
          v.attached.push_back(m);
      v.super_peers = es;
      views[id] = v;
    }
    // What membership adds from the heartbeats: a super-peer passes on to
    // every node that names it and to every super-peer some node names.
    std::map<std::string, peer_addresses> tables;
    for (const auto& id : ids) {
      auto v = views[id];
      if (v.super_peer.empty()) { // membership gives no view at all then
        tables.emplace(id, table(id, ids, v));
        continue;
      }
      std::set<std::string> serving(v.super_peers.begin(), v.super_peers.end());
      std::set<std::string> attached(v.attached.begin(), v.attached.end());
      for (const auto& [other, ov] : views) {
        if (other == id || ov.super_peer.empty())
          continue;
        serving.insert(ov.super_peer);
        if (ov.super_peer == id)
          attached.insert(other);
      }
      serving.erase(id);
      v.super_peers.assign(serving.begin(), serving.end());
      if (v.super_peer != id) // its view's members count only where elected
        attached.clear();
      for (const auto& [other, ov] : views)
        if (other != id && ov.super_peer == id)
          attached.insert(other);
      v.attached.assign(attached.begin(), attached.end());
      tables.emplace(id, table(id, ids, v));
    }
    for (const auto& origin : ids) {
      auto d = broadcast(tables, origin);
      // A node that relays through no one (election off, or its
      // super-peer in doubt) is not named anywhere: it hears relayed
      // traffic only where some view attaches it, and else by anti-entropy.
      for (const auto& id : ids)
        if (id != origin && !views[id].super_peer.empty() && d.got[addr_of(id)] == 0)
          FAIL("seed " << seed << ": " << id << " never got " << origin
                       << "'s broadcast");
    }
  }
}
