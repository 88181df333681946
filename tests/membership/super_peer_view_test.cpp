// The super-peer election as membership runs it: on what heartbeats
// advertise and on who is heard directly, recomputed as the view changes.
#include <catch2/catch.hpp>

#include "membership/membership_state.hpp"

using namespace dice;

namespace {

membership_config with_super_peers(const std::string& count) {
  membership_config c;
  c.super_peers = parse_super_peers(count);
  return c;
}

wire::Message heartbeat_from(const std::string& id, std::uint32_t slots,
                             std::vector<std::string> gossip = {}) {
  wire::Message m;
  m.set_sender_id(id);
  m.set_sender_addr("127.0.0.1:" + std::to_string(7000 + id.back()));
  m.set_incarnation(1);
  auto* hb = m.mutable_heartbeat();
  hb->mutable_info()->set_slots(slots);
  for (auto& g : gossip) {
    auto* p = hb->add_peers();
    p->set_id(g);
    p->set_addr("127.0.0.1:" + std::to_string(7000 + g.back()));
    p->set_incarnation(1);
    p->set_state(wire::ALIVE);
  }
  return m;
}

const node_view& row(const std::vector<node_view>& v, const std::string& id) {
  for (auto& r : v)
    if (r.id == id)
      return r;
  FAIL("no row for " << id);
  return v.front();
}

} // namespace

TEST_CASE("membership elects super-peers from its view and shows them",
          "[membership][super_peers]") {
  membership_state self{"n1", "127.0.0.1:7001", 1, with_super_peers("2")};
  wire::NodeInfo mine;
  mine.set_slots(1);
  self.set_self_capacity(mine);
  // Alone, a node serves itself.
  CHECK(self.view(0).front().super_peer);
  CHECK(self.view(0).front().attached_to == "n1");

  // n2 and n3 advertise more slots; n9 is known only by n2's gossip, and
  // is served all the same.
  self.on_heartbeat(heartbeat_from("n2", 8, {"n9"}), 10);
  self.on_heartbeat(heartbeat_from("n3", 4), 10);
  auto v = self.view(20);
  CHECK(row(v, "n2").super_peer);
  CHECK(row(v, "n3").super_peer);
  CHECK_FALSE(row(v, "n1").super_peer);
  CHECK_FALSE(row(v, "n9").super_peer);
  for (auto id : {"n1", "n9"}) {
    auto sp = row(v, id).attached_to;
    CHECK((sp == "n2" || sp == "n3"));
  }

  // n2 falls silent (n3 and n9 keep talking): once it is dead, n1 (the
  // next by capacity among those heard directly) replaces it.
  const auto& timing = with_super_peers("2");
  millis now = 10;
  while (now < 10 + timing.dead_after_ms + timing.failure_check_ms) {
    now += timing.failure_check_ms;
    self.on_heartbeat(heartbeat_from("n3", 4), now);
    self.on_heartbeat(heartbeat_from("n9", 0), now);
    self.tick(now);
  }
  v = self.view(now);
  REQUIRE(row(v, "n2").state == peer_state::dead);
  CHECK_FALSE(row(v, "n2").super_peer);
  CHECK(row(v, "n2").attached_to.empty());
  CHECK(row(v, "n1").super_peer);
  CHECK(row(v, "n3").super_peer);
  auto sp = row(v, "n9").attached_to;
  CHECK((sp == "n1" || sp == "n3"));
}

TEST_CASE("with the election off no node is shown as a super-peer",
          "[membership][super_peers]") {
  membership_state self{"n1", "127.0.0.1:7001", 1, {}};
  self.on_heartbeat(heartbeat_from("n2", 8), 10);
  for (auto& r : self.view(20)) {
    CHECK_FALSE(r.super_peer);
    CHECK(r.attached_to.empty());
  }
}

TEST_CASE("membership gives the bridge whom it relays through, and passes "
          "on to every node that names it, elected or not",
          "[membership][super_peers][relay]") {
  membership_state self{"n1", "127.0.0.1:7001", 1, with_super_peers("2")};
  wire::NodeInfo mine;
  mine.set_slots(1);
  self.set_self_capacity(mine);
  self.on_heartbeat(heartbeat_from("n2", 8), 10);
  self.on_heartbeat(heartbeat_from("n3", 4), 10);
  // n2 and n3 serve; n1 relays through one of them and says so.
  auto sp = self.super_peers().super_peer_of("n1");
  REQUIRE((sp == "n2" || sp == "n3"));
  CHECK(self.relay().super_peer == sp);
  CHECK(self.relay().super_peers == std::vector<std::string>{"n2", "n3"});
  CHECK(self.relay().attached.empty());
  CHECK(self.make_heartbeat(0).heartbeat().super_peer() == sp);

  // n4's view, started elsewhere, makes n1 its super-peer: n1 passes on to
  // it, and n1 stays in the list of super-peers of everyone who hears n4.
  auto hb = heartbeat_from("n4", 1);
  hb.mutable_heartbeat()->set_super_peer("n1");
  self.on_heartbeat(hb, 20);
  CHECK(self.relay().attached == std::vector<std::string>{"n4"});
  // n5 names a node nobody elected: n1 passes to_members there too.
  auto hb5 = heartbeat_from("n5", 1);
  hb5.mutable_heartbeat()->set_super_peer("n4");
  self.on_heartbeat(hb5, 20);
  CHECK(self.relay().super_peers == std::vector<std::string>{"n2", "n3", "n4"});

  // Its super-peer falls silent: suspected, it keeps n1 (suspicion comes
  // and goes under loss); found dead, it is replaced.
  auto beat_all_but_sp = [&](millis at) {
    for (const auto& id : {"n2", "n3", "n4", "n5"})
      if (id != sp)
        self.on_heartbeat(heartbeat_from(id, id == std::string("n2") ? 8 : id == std::string("n3") ? 4 : 1), at);
  };
  beat_all_but_sp(1100);
  self.tick(1100);
  REQUIRE(self.state_of(sp) == peer_state::suspect);
  CHECK(self.relay().super_peer == sp);
  for (millis t = 1200; t <= 1700; t += 100) { // ticks as the actor's: no pause
    beat_all_but_sp(t);
    self.tick(t);
  }
  REQUIRE(self.state_of(sp) == peer_state::dead);
  CHECK_FALSE(self.relay().super_peer.empty());
  CHECK(self.relay().super_peer != sp);
  CHECK(self.make_heartbeat(0).heartbeat().super_peer() == self.relay().super_peer);
}
