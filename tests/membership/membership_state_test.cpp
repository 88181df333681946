#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "membership/membership_state.hpp"

using namespace dice;

namespace {

using ids = std::vector<std::string>;

const membership_config cfg;

/// Stamps a body with the header the bridge would fill in for `sender`.
wire::Message sent_by(const membership_state& sender, wire::Message body) {
  body.set_sender_id(sender.id());
  body.set_sender_addr(sender.addr());
  body.set_incarnation(sender.incarnation());
  return body;
}

wire::Peer gossip_entry(const std::string& id, const std::string& addr,
                        std::uint64_t incarnation,
                        wire::PeerState state = wire::ALIVE) {
  wire::Peer p;
  p.set_id(id);
  p.set_addr(addr);
  p.set_incarnation(incarnation);
  p.set_state(state);
  return p;
}

/// A heartbeat from a node that exists only as a header.
wire::Message heartbeat(const std::string& id, const std::string& addr,
                        std::uint64_t incarnation,
                        std::vector<wire::Peer> gossip = {}) {
  wire::Message m;
  m.set_sender_id(id);
  m.set_sender_addr(addr);
  m.set_incarnation(incarnation);
  auto* hb = m.mutable_heartbeat();
  for (auto& p : gossip)
    *hb->add_peers() = p;
  return m;
}

/// Ticks `n` as its actor does, every failure_check_ms, from its previous
/// tick up to `now`, and returns every change: a single tick after a
/// longer silence would be taken for a pause of the process.
std::vector<peer_change> tick_until(membership_state& n, millis now) {
  static std::map<const membership_state*, millis> last;
  auto& at = last[&n];
  if (at >= now) // (a previous test's state at the same address)
    at = now - 1;
  std::vector<peer_change> all;
  for (auto t = at + cfg.failure_check_ms; t < now; t += cfg.failure_check_ms)
    for (auto& c : n.tick(t))
      all.push_back(c);
  for (auto& c : n.tick(now))
    all.push_back(c);
  at = now;
  return all;
}

/// A network that loses what `lost` says (nothing by default): every node
/// heartbeats its targets, then all tick.
struct cluster {
  std::vector<membership_state*> up;
  std::function<bool(const std::string& from, const std::string& to)> lost;

  membership_state* at(const std::string& addr) {
    for (auto* n : up)
      if (n->addr() == addr)
        return n;
    return nullptr;
  }

  void round(millis now) {
    for (auto* n : up) {
      auto hb = sent_by(*n, n->make_heartbeat(now));
      for (const auto& target : n->heartbeat_targets())
        if (auto* receiver = at(target); receiver && !(lost && lost(n->id(), receiver->id())))
          receiver->on_heartbeat(hb, now);
    }
    for (auto* n : up)
      tick_until(*n, now);
  }
};

std::set<std::string> gossiped_ids(const wire::Message& hb) {
  std::set<std::string> result;
  for (const auto& p : hb.heartbeat().peers())
    result.insert(p.id());
  return result;
}

} // namespace

TEST_CASE("three nodes converge to three alive from a single seed",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  membership_state b{"b", "127.0.0.1:7402", 1};
  membership_state c{"c", "127.0.0.1:7403", 1};
  b.add_seed(a.addr());
  c.add_seed(a.addr());
  cluster net{{&a, &b, &c}};

  net.round(0);
  CHECK(a.live_ids() == ids{"a", "b", "c"});
  // b and c only ever address the seed: they learn of each other by gossip.
  CHECK(b.live_ids() == ids{"b"});
  CHECK(b.heartbeat_targets() == ids{a.addr()});
  net.round(cfg.heartbeat_interval_ms);
  CHECK(b.live_ids() == ids{"a", "b", "c"});
  CHECK(c.live_ids() == ids{"a", "b", "c"});
  CHECK(b.seeds_to_connect().empty());

  // Past dead_after_ms the gossip grace period is over: everyone stays alive
  // only because they now hear each other directly.
  const millis step = cfg.heartbeat_interval_ms;
  for (millis now = 2 * step; now <= 3 * cfg.dead_after_ms; now += step)
    net.round(now);
  for (auto* n : net.up) {
    INFO(n->id());
    CHECK(n->live_ids() == ids{"a", "b", "c"});
    CHECK(n->heartbeat_targets().size() == 2);
  }
}

TEST_CASE("a silent peer becomes suspect, then dead, at the configured ages",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  const millis heard = 1000;
  auto joined = a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), heard);
  REQUIRE(joined.size() == 1);
  CHECK(joined[0].joined);
  CHECK(joined[0].to == peer_state::alive);

  CHECK(tick_until(a, heard + cfg.suspect_after_ms - 1).empty());
  CHECK(a.state_of("b") == peer_state::alive);

  auto suspected = tick_until(a, heard + cfg.suspect_after_ms);
  REQUIRE(suspected.size() == 1);
  CHECK(suspected[0].id == "b");
  CHECK(suspected[0].from == peer_state::alive);
  CHECK(suspected[0].to == peer_state::suspect);
  CHECK(a.live_ids() == ids{"a"});
  CHECK(a.broadcast_targets() == ids{"127.0.0.1:7402"});

  CHECK(tick_until(a, heard + cfg.dead_after_ms - 1).empty());
  CHECK(a.state_of("b") == peer_state::suspect);

  auto died = tick_until(a, heard + cfg.dead_after_ms);
  REQUIRE(died.size() == 1);
  CHECK(died[0].from == peer_state::suspect);
  CHECK(died[0].to == peer_state::dead);
  CHECK(a.broadcast_targets().empty());
  // Still heartbeated, so that a partition can heal.
  CHECK(a.heartbeat_targets() == ids{"127.0.0.1:7402"});
}

TEST_CASE("a late listener learns the peers found before it, dead ones "
          "left out",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  CHECK(a.known_peers().empty());
  const millis dead = cfg.dead_after_ms, suspect = cfg.suspect_after_ms;
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 3), 0);
  tick_until(a, dead); // b has been silent long enough to be dead
  REQUIRE(a.state_of("b") == peer_state::dead);
  a.on_heartbeat(heartbeat("d", "127.0.0.1:7404", 2), dead);
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1), dead + suspect);
  tick_until(a, dead + suspect); // d silent long enough to be suspect
  REQUIRE(a.state_of("d") == peer_state::suspect);
  REQUIRE(a.state_of("c") == peer_state::alive);
  auto known = a.known_peers();
  REQUIRE(known.size() == 2);
  CHECK(known[0].id == "c");
  CHECK(known[0].addr == "127.0.0.1:7403");
  CHECK(known[0].to == peer_state::alive);
  CHECK(known[0].joined);
  CHECK(known[1].id == "d");
  CHECK(known[1].to == peer_state::suspect);
  CHECK(known[1].incarnation == 2);
}

TEST_CASE("a dead peer that speaks again with the same incarnation is alive",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 0);
  tick_until(a, cfg.dead_after_ms);
  REQUIRE(a.state_of("b") == peer_state::dead);

  auto back = a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 5000);
  REQUIRE(back.size() == 1);
  CHECK(back[0].from == peer_state::dead);
  CHECK(back[0].to == peer_state::alive);
  CHECK_FALSE(back[0].restarted);
  CHECK_FALSE(back[0].joined);
  CHECK(tick_until(a, 5000 + cfg.suspect_after_ms - 1).empty());
}

TEST_CASE("a restarted peer comes back alive with restarted set",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 0);

  SECTION("elsewhere, before it was suspected: heard once the old address "
          "has been silent (it could have been a second node with its id)") {
    CHECK(a.on_heartbeat(heartbeat("b", "127.0.0.1:7502", 2), 100).empty());
    tick_until(a, cfg.suspect_after_ms);
    REQUIRE(a.state_of("b") == peer_state::suspect);
    auto changes = a.on_heartbeat(heartbeat("b", "127.0.0.1:7502", 2),
                                  cfg.suspect_after_ms + 1);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].restarted);
    CHECK(changes[0].from == peer_state::suspect);
    CHECK(changes[0].to == peer_state::alive);
    CHECK(changes[0].incarnation == 2);
    CHECK(a.take_refusals().empty());
  }
  SECTION("at the same address while still alive") {
    auto changes = a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 2), 100);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].restarted);
    CHECK(changes[0].from == peer_state::alive);
    CHECK(changes[0].to == peer_state::alive);
    // (then it moves, once dead, for the rows checked below)
    tick_until(a, 100 + cfg.dead_after_ms);
    a.on_heartbeat(heartbeat("b", "127.0.0.1:7502", 2), cfg.dead_after_ms + 1);
  }
  SECTION("after being declared dead") {
    tick_until(a, cfg.dead_after_ms);
    REQUIRE(a.state_of("b") == peer_state::dead);
    auto changes = a.on_heartbeat(heartbeat("b", "127.0.0.1:7502", 2),
                                  cfg.dead_after_ms + 1);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].restarted);
    CHECK_FALSE(changes[0].joined);
    CHECK(changes[0].from == peer_state::dead);
    CHECK(changes[0].to == peer_state::alive);
    CHECK(changes[0].addr == "127.0.0.1:7502");
  }
  auto rows = a.view(cfg.dead_after_ms + 1);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].incarnation == 2);
  CHECK(rows[1].addr == "127.0.0.1:7502");
  CHECK(rows[1].state == peer_state::alive);
}

TEST_CASE("a message from an older incarnation is ignored", "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 2), 0);

  auto late = heartbeat("b", "127.0.0.1:7402", 1,
                        {gossip_entry("x", "127.0.0.1:7409", 1)});
  CHECK(a.on_heartbeat(late, cfg.suspect_after_ms - 1).empty());
  CHECK(a.counters().stale_messages == 1);
  CHECK_FALSE(a.state_of("x")); // its gossip is dropped with it
  CHECK(a.view(0)[1].incarnation == 2);
  // It did not count as contact either.
  auto changes = tick_until(a, cfg.suspect_after_ms);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].to == peer_state::suspect);
}

TEST_CASE("gossip revives a dead peer only with a higher incarnation",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 0);
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1), 0);
  // c keeps talking and still lists b as alive; b is silent.
  auto from_c = [](std::uint64_t b_incarnation) {
    return heartbeat("c", "127.0.0.1:7403", 1,
                     {gossip_entry("b", "127.0.0.1:7402", b_incarnation)});
  };
  millis now = 0;
  for (; now <= cfg.dead_after_ms; now += cfg.heartbeat_interval_ms) {
    a.on_heartbeat(from_c(1), now);
    tick_until(a, now);
  }
  REQUIRE(a.state_of("b") == peer_state::dead);
  CHECK(a.on_heartbeat(from_c(1), now).empty());
  // Nor does it introduce a stranger it does not report alive.
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1,
                           {gossip_entry("x", "127.0.0.1:7408", 1, wire::DEAD),
                            gossip_entry("y", "127.0.0.1:7409", 1,
                                         wire::SUSPECT)}),
                 now);
  CHECK_FALSE(a.state_of("x"));
  CHECK_FALSE(a.state_of("y"));
  CHECK(a.state_of("b") == peer_state::dead);

  auto changes = a.on_heartbeat(from_c(2), now);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].id == "b");
  CHECK(changes[0].restarted);
  CHECK(changes[0].to == peer_state::alive);
  CHECK(a.state_of("b") == peer_state::alive);
  // Only a grace period: without direct contact it is suspected again.
  tick_until(a, now + cfg.suspect_after_ms - 1);
  CHECK(a.state_of("b") == peer_state::alive);
  tick_until(a, now + cfg.suspect_after_ms);
  CHECK(a.state_of("b") == peer_state::suspect);
}

TEST_CASE("gossip of a new incarnation already dead does not revive",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 0);
  const millis now = cfg.dead_after_ms;
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1), now);
  tick_until(a, now);
  REQUIRE(a.state_of("b") == peer_state::dead);

  auto changes = a.on_heartbeat(
    heartbeat("c", "127.0.0.1:7403", 1,
              {gossip_entry("b", "127.0.0.1:7402", 2, wire::DEAD)}),
    now);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].restarted);
  CHECK(changes[0].to == peer_state::dead);
  CHECK(a.view(now)[1].incarnation == 2);
  CHECK(a.state_of("b") == peer_state::dead);
}

TEST_CASE("a crashed node is declared dead by all while others gossip it",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  membership_state b{"b", "127.0.0.1:7402", 1};
  membership_state c{"c", "127.0.0.1:7403", 1};
  b.add_seed(a.addr());
  c.add_seed(a.addr());
  cluster net{{&a, &b, &c}};
  millis now = 0;
  for (; now <= 1000; now += cfg.heartbeat_interval_ms)
    net.round(now);
  REQUIRE(a.live_ids() == ids{"a", "b", "c"});
  REQUIRE(b.live_ids() == ids{"a", "b", "c"});

  const millis last_heard = now - cfg.heartbeat_interval_ms;
  net.up = {&a, &b}; // c is killed
  for (; now < last_heard + cfg.dead_after_ms; now += cfg.heartbeat_interval_ms)
    net.round(now);
  CHECK(a.state_of("c") == peer_state::suspect);
  CHECK(b.state_of("c") == peer_state::suspect);
  for (; now <= last_heard + 3 * cfg.dead_after_ms;
       now += cfg.heartbeat_interval_ms)
    net.round(now);
  CHECK(a.state_of("c") == peer_state::dead);
  CHECK(b.state_of("c") == peer_state::dead);
  CHECK(a.live_ids() == ids{"a", "b"});
}

TEST_CASE("a peer whose heartbeats to one node are lost stays alive there "
          "while another hears it, and is dead there dead_after_ms after its "
          "last heartbeat once it crashes", "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  membership_state b{"b", "127.0.0.1:7402", 1};
  membership_state c{"c", "127.0.0.1:7403", 1};
  b.add_seed(a.addr());
  c.add_seed(a.addr());
  cluster net{{&a, &b, &c}, {}};
  millis now = 0;
  for (; now <= 1000; now += cfg.heartbeat_interval_ms)
    net.round(now);
  REQUIRE(a.live_ids() == ids{"a", "b", "c"});

  // Everything b sends a is lost for 5 s: c, which hears b, vouches for it.
  net.lost = [](const std::string& from, const std::string& to) {
    return from == "b" && to == "a";
  };
  const millis until = now + 5000;
  for (; now <= until; now += cfg.heartbeat_interval_ms) {
    net.round(now);
    REQUIRE(a.state_of("b") == peer_state::alive);
  }
  // Without c's word, a would have judged b dead by its own silence.
  REQUIRE(until - 1000 > cfg.dead_after_ms);

  // b crashes: its last heartbeat reached c at `last`. c's word then ages
  // as b's silence does, so a finds b dead when c does.
  const millis last = now - cfg.heartbeat_interval_ms;
  net.up = {&a, &c};
  millis dead_at = -1;
  for (; now <= last + 3 * cfg.dead_after_ms && dead_at < 0;
       now += cfg.failure_check_ms) {
    if ((now - last) % cfg.heartbeat_interval_ms == 0) {
      net.round(now);
    } else {
      tick_until(a, now);
      tick_until(c, now);
    }
    if (a.state_of("b") == peer_state::dead)
      dead_at = now;
  }
  CHECK(dead_at >= last + cfg.dead_after_ms);
  CHECK(dead_at <= last + cfg.dead_after_ms + cfg.failure_check_ms);
  CHECK(c.state_of("b") == peer_state::dead);
}

TEST_CASE("a vouch never revives a dead peer, nor counts from an older "
          "incarnation or a voucher that only heard of it", "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 2), 0);
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1), 0);
  auto vouch = [](std::uint64_t incarnation, bool heard) {
    auto e = gossip_entry("b", "127.0.0.1:7402", incarnation);
    if (heard)
      e.set_heard_ms_ago(10);
    return e;
  };
  // From 1,000 ms on, only c speaks, with words of b that cannot count.
  for (millis t = 100; t <= 1500; t += cfg.failure_check_ms) {
    a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1, {vouch(1, true), vouch(2, false)}), t);
    tick_until(a, t);
  }
  CHECK(a.state_of("b") == peer_state::suspect);
  // A good word brings a suspect back.
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1, {vouch(2, true)}), 1500);
  CHECK(a.state_of("b") == peer_state::alive);
  tick_until(a, 1500 + cfg.dead_after_ms);
  REQUIRE(a.state_of("b") == peer_state::dead);
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1, {vouch(2, true)}),
                 1500 + cfg.dead_after_ms);
  CHECK(a.state_of("b") == peer_state::dead);
}

TEST_CASE("a dead peer is forgotten after forget_dead_after_ms",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 0);
  tick_until(a, cfg.dead_after_ms);
  REQUIRE(a.state_of("b") == peer_state::dead);

  const millis forget_at = cfg.dead_after_ms + cfg.forget_dead_after_ms;
  CHECK(tick_until(a, forget_at - 1).empty());
  CHECK(a.state_of("b") == peer_state::dead);

  auto changes = tick_until(a, forget_at);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].forgotten);
  CHECK(changes[0].id == "b");
  CHECK_FALSE(a.state_of("b"));
  CHECK(a.heartbeat_targets().empty());
  CHECK(a.view(forget_at).size() == 1);

  auto rejoined = a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1),
                                 forget_at + 1);
  REQUIRE(rejoined.size() == 1);
  CHECK(rejoined[0].joined);
}

TEST_CASE("connect and connect_rep give a joiner the whole view",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 0);
  a.on_heartbeat(heartbeat("e", "127.0.0.1:7405", 1), 0);
  const millis now = cfg.dead_after_ms;
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1), now);
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), now);
  tick_until(a, now);
  REQUIRE(a.state_of("e") == peer_state::dead);

  membership_state d{"d", "127.0.0.1:7404", 1};
  d.add_seed("localhost:7401");
  REQUIRE(d.seeds_to_connect() == ids{"127.0.0.1:7401"});

  wire::Message connect;
  connect.mutable_connect();
  wire::Message reply;
  auto at_seed = a.on_connect(sent_by(d, connect), now, &reply);
  REQUIRE(at_seed.size() == 1);
  CHECK(at_seed[0].id == "d");
  CHECK(at_seed[0].joined);
  REQUIRE(reply.has_connect_rep());
  std::set<std::string> listed;
  for (const auto& p : reply.connect_rep().peers())
    listed.insert(p.id());
  // Self included; the dead are not handed on, nor the joiner to itself.
  CHECK(listed == std::set<std::string>{"a", "b", "c"});

  auto at_joiner = d.on_connect_rep(sent_by(a, reply), now + 1);
  CHECK(at_joiner.size() == 3);
  CHECK(d.live_ids() == ids{"a", "b", "c", "d"});
  CHECK_FALSE(d.state_of("e"));
  CHECK(d.seeds_to_connect().empty());
}

TEST_CASE("heartbeat gossip rotates through a table larger than one heartbeat",
          "[membership]") {
  auto small = cfg;
  small.gossip_peers_per_heartbeat = 3;
  membership_state a{"a", "127.0.0.1:7401", 1, small};
  std::set<std::string> everyone;
  auto join = [&](int i) {
    auto id = "p" + std::to_string(i);
    a.on_heartbeat(heartbeat(id, "127.0.0.1:" + std::to_string(7500 + i), 1),
                   0);
    everyone.insert(id);
  };
  for (int i = 0; i < 3; ++i)
    join(i);
  CHECK(gossiped_ids(a.make_heartbeat(0)) == everyone);
  CHECK(gossiped_ids(a.make_heartbeat(0)) == everyone);

  for (int i = 3; i < 7; ++i)
    join(i);
  std::set<std::string> covered;
  for (int beat = 0; beat < 3; ++beat) { // ceil(7 / 3) heartbeats
    auto hb = a.make_heartbeat(0);
    CHECK(hb.heartbeat().peers_size() == 3);
    auto ids = gossiped_ids(hb);
    covered.insert(ids.begin(), ids.end());
  }
  CHECK(covered == everyone);
}

TEST_CASE("nodes that formed together do not gossip in step: every "
          "heartbeat round some of them vouch for a given peer, never all",
          "[membership]") {
  // 32 nodes that heard the same 40 peers at the same moment, each
  // listing 8 per heartbeat: a walk of one order for all would list a
  // peer in the same heartbeat on every node, then on none for 4 rounds.
  constexpr int nodes = 32, peers = 40, rounds = 10;
  std::vector<membership_state> cluster;
  for (int v = 0; v < nodes; ++v) {
    cluster.emplace_back("v" + std::to_string(v),
                         "127.0.0.1:" + std::to_string(7000 + v), 1, cfg);
    for (int i = 0; i < peers; ++i)
      cluster.back().on_heartbeat(
        heartbeat("p" + std::to_string(i), "127.0.0.1:" + std::to_string(7500 + i), 1), 0);
  }
  for (int round = 0; round < rounds; ++round) {
    int listing = 0;
    for (auto& v : cluster)
      listing += gossiped_ids(v.make_heartbeat(0)).count("p0") > 0 ? 1 : 0;
    CAPTURE(round);
    CHECK(listing >= 1);
    CHECK(listing <= nodes / 2);
  }
}

TEST_CASE("view lists self first, then peers sorted by id", "[membership]") {
  membership_state m{"m", "127.0.0.1:7401", 7};
  m.on_heartbeat(heartbeat("z", "127.0.0.1:7402", 1), 100);
  m.on_heartbeat(heartbeat("b", "127.0.0.1:7403", 3), 150);

  auto rows = m.view(400);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].id == "m");
  CHECK(rows[0].addr == "127.0.0.1:7401");
  CHECK(rows[0].incarnation == 7);
  CHECK(rows[0].state == peer_state::alive);
  CHECK(rows[0].last_seen_ms == 0);
  CHECK(rows[1].id == "b");
  CHECK(rows[1].incarnation == 3);
  CHECK(rows[1].last_seen_ms == 250);
  CHECK(rows[2].id == "z");
  CHECK(rows[2].last_seen_ms == 300);
  CHECK(m.live_ids() == ids{"b", "m", "z"});
  CHECK(m.state_of("m") == peer_state::alive);
  CHECK_FALSE(m.state_of("q"));
}

TEST_CASE("a node claiming our id is ignored and counted", "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  CHECK(a.on_heartbeat(heartbeat("a", "127.0.0.1:7409", 5), 0).empty());
  CHECK(a.counters().conflicting_ids == 1);
  // Our own datagram looped back is not a conflict.
  CHECK(a.on_heartbeat(heartbeat("a", "127.0.0.1:7401", 1), 0).empty());
  CHECK(a.counters().conflicting_ids == 1);
  // Gossip about us never changes how we see ourselves.
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1,
                           {gossip_entry("a", "127.0.0.1:7409", 9,
                                         wire::DEAD)}),
                 0);
  auto self = a.view(0)[0];
  CHECK(self.addr == "127.0.0.1:7401");
  CHECK(self.incarnation == 1);
  CHECK(a.view(0).size() == 2);
  // A former id of this node at our address: never a target of our own.
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1,
                           {gossip_entry("old-a", "127.0.0.1:7401", 1)}),
                 0);
  CHECK(a.heartbeat_targets() == ids{"127.0.0.1:7402"});
  CHECK(a.broadcast_targets() == ids{"127.0.0.1:7402"});
}

TEST_CASE("seeds are contacted until they resolve to an alive peer",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.add_seed("127.0.0.1:7401"); // our own address among the --peer list
  a.add_seed("localhost:7402");
  a.add_seed("127.0.0.1:7403");
  CHECK(a.seeds_to_connect() == ids{"127.0.0.1:7402", "127.0.0.1:7403"});

  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 0);
  CHECK(a.seeds_to_connect() == ids{"127.0.0.1:7403"});
  CHECK(a.heartbeat_targets() == ids{"127.0.0.1:7402", "127.0.0.1:7403"});

  tick_until(a, cfg.suspect_after_ms);
  CHECK(a.seeds_to_connect() == ids{"127.0.0.1:7402", "127.0.0.1:7403"});
  CHECK(a.heartbeat_targets() == ids{"127.0.0.1:7402", "127.0.0.1:7403"});
}

TEST_CASE("a membership config that cannot work is rejected", "[membership]") {
  CHECK(cfg.problem().empty());
  auto bad = cfg;
  bad.dead_after_ms = bad.suspect_after_ms;
  CHECK(bad.problem() == "dead-after must be longer than suspect-after");
  CHECK_THROWS_WITH((membership_state{"a", "127.0.0.1:7401", 1, bad}),
                    Catch::Contains("dead-after"));
  bad = cfg;
  bad.suspect_after_ms = bad.heartbeat_interval_ms;
  CHECK_FALSE(bad.problem().empty());
  bad = cfg;
  bad.failure_check_ms = bad.heartbeat_interval_ms + 1;
  CHECK_THROWS_WITH((membership_state{"a", "127.0.0.1:7401", 1, bad}),
                    Catch::Contains("failure check"));
  bad.failure_check_ms = 0;
  CHECK_FALSE(bad.problem().empty());
  CHECK_THROWS_AS((membership_state{"", "127.0.0.1:7401", 1}),
                  std::invalid_argument);
  CHECK(std::string(to_string(peer_state::suspect)) == "suspect");
  CHECK(std::string(to_string(peer_state::dead)) == "dead");
  CHECK(std::string(to_string(peer_state::alive)) == "alive");
}

TEST_CASE("ticks more often than heartbeats send one heartbeat per interval "
          "on a fixed schedule, and judge silence at every tick",
          "[membership]") {
  membership_config c;
  c.heartbeat_interval_ms = 400;
  c.failure_check_ms = 100;
  membership_state a{"a", "127.0.0.1:7401", 1, c};
  std::vector<millis> sent;
  // Ticks every 100 ms, some of them late by up to 30 ms.
  for (millis t = 0; t < 2000; t += 100) {
    auto now = t + (t % 300 == 0 ? 30 : 0);
    if (a.heartbeat_due(now))
      sent.push_back(now);
  }
  CHECK(sent == std::vector<millis>{30, 400, 800, 1230, 1600});
  // A stall of several intervals sends one heartbeat, not a burst.
  CHECK(a.heartbeat_due(5000));
  CHECK_FALSE(a.heartbeat_due(5100));
  CHECK(a.heartbeat_due(5400));

  // Silence is judged at the check ticks: a peer last heard at 0 is dead at
  // the first tick from dead_after on, not a heartbeat interval later.
  membership_state b{"b", "127.0.0.1:7402", 1, c};
  a.on_heartbeat(sent_by(b, b.make_heartbeat(0)), 0);
  millis dead_at = -1;
  for (millis t = 100; t <= 3000 && dead_at < 0; t += c.failure_check_ms)
    for (const auto& ch : tick_until(a, t))
      if (ch.to == peer_state::dead)
        dead_at = t;
  CHECK(dead_at == c.dead_after_ms);
}

TEST_CASE("a second node with the id of a live peer is refused and told "
          "where the first is, the first keeps the id",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 5), 1000);
  // Started later with the same id elsewhere, and a higher incarnation:
  // not heard while the first may merely have moved...
  auto changes = a.on_heartbeat(heartbeat("b", "127.0.0.1:7409", 9), 1100);
  CHECK(changes.empty());
  CHECK(a.take_refusals().empty());
  // ...refused once the first speaks again.
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 5), 1150);
  auto told = a.take_refusals();
  REQUIRE(told.size() == 1);
  CHECK(told[0].id == "b");
  CHECK(told[0].newcomer_addr == "127.0.0.1:7409");
  CHECK(told[0].holder_addr == "127.0.0.1:7402");
  CHECK(a.take_refusals().empty());
  CHECK(a.counters().ids_refused == 1);
  CHECK(a.view(1100)[1].addr == "127.0.0.1:7402");
  CHECK(a.view(1100)[1].incarnation == 5);
  CHECK(a.broadcast_targets() == ids{"127.0.0.1:7402"});
  // The first goes on being heard as before.
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 5), 1200);
  CHECK(a.state_of("b") == peer_state::alive);

  SECTION("the newcomer, told, stops with a reason naming the holder") {
    membership_state newcomer{"b", "127.0.0.1:7409", 9};
    wire::Message notice;
    notice.set_sender_id("a");
    notice.mutable_id_in_use()->set_id("b");
    notice.mutable_id_in_use()->set_holder_addr(told[0].holder_addr);
    auto why = newcomer.on_id_in_use(notice);
    REQUIRE(why);
    CHECK(why->find("127.0.0.1:7402") != std::string::npos);
    CHECK(why->find("--id") != std::string::npos);
    // The holder itself ignores such a notice.
    membership_state holder{"b", "127.0.0.1:7402", 5};
    CHECK_FALSE(holder.on_id_in_use(notice));
  }
  SECTION("once the first is suspect, a node elsewhere under its id is a "
          "restart, not a clash") {
    tick_until(a, 1200 + cfg.suspect_after_ms);
    REQUIRE(a.state_of("b") == peer_state::suspect);
    auto moved = a.on_heartbeat(heartbeat("b", "127.0.0.1:7409", 9),
                                1300 + cfg.suspect_after_ms);
    REQUIRE(moved.size() == 1);
    CHECK(moved[0].restarted);
    CHECK(a.view(0)[1].addr == "127.0.0.1:7409");
    CHECK(a.take_refusals().empty());
  }
}

TEST_CASE("a node paused for 3 s does not judge its peers by the silence "
          "of its own pause, a peer silent after it still dies",
          "[membership]") {
  membership_state a{"a", "127.0.0.1:7401", 1};
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 0);
  a.on_heartbeat(heartbeat("c", "127.0.0.1:7403", 1), 0);
  tick_until(a, 300);
  // SIGSTOP: no tick, no read, for 3 s; the first tick after it comes
  // before the heartbeats queued meanwhile are read.
  CHECK(a.tick(3300).empty());
  CHECK(a.live_ids() == ids{"a", "b", "c"});
  CHECK(a.counters().pauses == 1);
  a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), 3301);
  // c really died meanwhile: judged after dead_after of unpaused silence.
  std::vector<peer_change> later;
  millis t = 3300;
  for (; t <= 3300 + 2 * cfg.dead_after_ms && a.state_of("c") != peer_state::dead;
       t += cfg.failure_check_ms) {
    if (t % cfg.heartbeat_interval_ms == 0)
      a.on_heartbeat(heartbeat("b", "127.0.0.1:7402", 1), t);
    a.tick(t);
  }
  CHECK(a.state_of("c") == peer_state::dead);
  CHECK(a.state_of("b") == peer_state::alive);
  // dead at 300 (its last word, shifted by the pause) + dead_after, to the tick
  CHECK(t - cfg.failure_check_ms <= 3300 + cfg.dead_after_ms);
}

TEST_CASE("the peer directory's version moves when a peer, a seed or a peer's "
          "state changes, and not for a heartbeat that changes none",
          "[membership]") {
  membership_state n{"n1", "127.0.0.1:7001", 1, cfg};
  auto v = n.directory_version();
  n.add_seed("127.0.0.1:7002");
  CHECK(n.directory_version() != v);
  v = n.directory_version();
  n.add_seed("127.0.0.1:7002"); // known already
  CHECK(n.directory_version() == v);
  // A new peer, and one it gossips: both addresses are new.
  n.on_heartbeat(heartbeat("n2", "127.0.0.1:7002", 1,
                           {gossip_entry("n3", "127.0.0.1:7003", 1)}),
                 100);
  CHECK(n.addresses().size() == 2);
  CHECK(n.directory_version() != v);
  v = n.directory_version();
  // The same peers again: nothing the bridge is told changes.
  n.on_heartbeat(heartbeat("n2", "127.0.0.1:7002", 1,
                           {gossip_entry("n3", "127.0.0.1:7003", 1)}),
                 200);
  CHECK(n.directory_version() == v);
  // n2 restarts: a new incarnation, which the bridge's map carries.
  n.on_heartbeat(heartbeat("n2", "127.0.0.1:7002", 2), 300);
  CHECK(n.directory_version() != v);
  v = n.directory_version();
  // Silence: n3 becomes suspect, then dead (broadcasts leave it out).
  tick_until(n, 300 + cfg.dead_after_ms + 2 * cfg.failure_check_ms);
  CHECK(n.state_of("n3") == peer_state::dead);
  CHECK(n.directory_version() != v);
}
