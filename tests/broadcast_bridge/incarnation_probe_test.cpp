// A node without a data dir asks its peers which incarnation of its id they
// heard (IncarnationProbe) and starts above the answer (IncarnationNotice):
// the prober's machine and the answering bridge, end to end without I/O.
#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <vector>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/bundle.hpp"
#include "broadcast_bridge/hmac.hpp"
#include "broadcast_bridge/incarnation_probe.hpp"

using namespace dice;

namespace {

const std::string key = "cluster-secret";

bridge_identity who(const std::string& id, std::uint64_t incarnation) {
  // "n1" -> 10.0.0.1:7400
  return {"dice", id, "10.0.0." + id.substr(1) + ":7400", incarnation};
}

wire::Message heartbeat() {
  wire::Message m;
  m.mutable_heartbeat();
  return m;
}

std::string seal(bridge_state& b, wire::Message m, millis now = 1000) {
  auto d = b.seal(std::move(m), now);
  REQUIRE(d);
  return *d;
}

incarnation_probe_config probe_of(const std::string& id, std::uint64_t clock,
                                  std::vector<std::string> peers) {
  incarnation_probe_config c;
  c.self = who(id, clock);
  c.keys = keyring(key);
  c.peers = std::move(peers);
  c.nonce = 0x5eed;
  c.window_ms = 500;
  c.retry_ms = 100;
  return c;
}

/// A peer's bridge: opens what `to` holds for it and, for a probe, answers.
std::vector<std::string> answer(bridge_state& peer, const std::string& bytes,
                                millis now = 1000) {
  std::vector<std::string> out;
  auto m = peer.open(bytes);
  if (!m)
    return out;
  if (auto notice = peer.answer_probe(*m, now))
    out.push_back(seal(peer, std::move(*notice), now));
  return out;
}

datagram from(const std::string& bytes, const std::string& addr) {
  return {bytes, addr};
}

} // namespace

TEST_CASE("a restarted node whose clock is behind its previous start takes "
          "an incarnation above what its peers heard",
          "[bridge][incarnation]") {
  // n2's previous life (incarnation 5000, its start time) spoke to n1.
  bridge_state n1{who("n1", 100), key};
  bridge_state n2_before{who("n2", 5000), key};
  REQUIRE(n1.open(seal(n2_before, heartbeat())));

  // Restarted with the clock behind: it offers 4000.
  incarnation_probe probe{probe_of("n2", 4000, {"10.0.0.1:7400"}), 0};
  CHECK_FALSE(probe.done(0));
  auto sent = probe.due(0);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].first == "10.0.0.1:7400");
  // The probe is below n2's last incarnation yet not dropped as stale.
  auto notices = answer(n1, sent[0].second);
  REQUIRE(notices.size() == 1);
  CHECK(n1.counters().dropped_stale_incarnation == 0);
  CHECK(n1.counters().probes_answered == 1);
  probe.on_datagram(from(notices[0], "10.0.0.1:7400"), 3);
  CHECK(probe.done(3)); // every peer asked has answered: no more waiting
  CHECK(probe.highest_heard() == 5000);
  CHECK(probe.incarnation() == 5001);

  // Its datagrams at the new incarnation are fresh to n1; the probe
  // took no sequence number of that incarnation.
  bridge_state n2{who("n2", probe.incarnation()), key};
  CHECK(n1.open(seal(n2, heartbeat())));
  CHECK(n1.counters().dropped_replayed == 0);
}

TEST_CASE("a probe answered by nobody ends with the window and keeps the "
          "clock's offer, unanswered peers are asked again",
          "[bridge][incarnation]") {
  incarnation_probe probe{probe_of("n2", 4000, {"10.0.0.1:7400", "10.0.0.3:7400"}),
                          0};
  CHECK(probe.due(0).size() == 2);
  CHECK(probe.due(50).empty());
  CHECK(probe.next_wakeup() == 100);
  CHECK(probe.due(100).size() == 2);
  CHECK_FALSE(probe.done(499));
  CHECK(probe.done(500));
  CHECK(probe.due(500).empty());
  CHECK(probe.incarnation() == 4000);
  CHECK(probe.counters().probes_sent == 4);
}

TEST_CASE("a probe waits for every peer asked, takes the highest answer, "
          "and asks peers it hears from meanwhile",
          "[bridge][incarnation]") {
  bridge_state n1{who("n1", 100), key};
  bridge_state n3{who("n3", 300), key};
  // n3 heard a later life of n2 (from another address) than n1 did.
  bridge_state n2_old{who("n2", 5000), key};
  bridge_identity moved = who("n2", 6000);
  moved.addr = "10.0.0.9:7400";
  bridge_state n2_moved{moved, key};
  REQUIRE(n1.open(seal(n2_old, heartbeat())));
  REQUIRE(n3.open(seal(n2_old, heartbeat())));
  REQUIRE(n3.open(seal(n2_moved, heartbeat())));

  // Only n1 is a --peer; n3's heartbeat reaches the restarted node.
  incarnation_probe probe{probe_of("n2", 10, {"10.0.0.1:7400"}), 0};
  auto first = probe.due(0);
  REQUIRE(first.size() == 1);
  probe.on_datagram(from(seal(n3, heartbeat()), "10.0.0.3:7400"), 1);
  auto second = probe.due(1);
  REQUIRE(second.size() == 1);
  CHECK(second[0].first == "10.0.0.3:7400");
  probe.on_datagram(from(answer(n1, first[0].second).at(0), "10.0.0.1:7400"), 2);
  CHECK_FALSE(probe.done(2)); // n3 has not answered yet
  probe.on_datagram(from(answer(n3, second[0].second).at(0), "10.0.0.3:7400"), 3);
  CHECK(probe.done(3));
  CHECK(probe.highest_heard() == 6000);
  CHECK(probe.incarnation() == 6001);
  CHECK(probe.counters().notices_taken == 2);
}

TEST_CASE("a peer that never heard the id answers 0, and the clock's offer "
          "stands",
          "[bridge][incarnation]") {
  bridge_state n1{who("n1", 100), key};
  bridge_state n22{who("n22", 9000), key}; // an id with n2 as its prefix
  REQUIRE(n1.open(seal(n22, heartbeat())));
  incarnation_probe probe{probe_of("n2", 4000, {"10.0.0.1:7400"}), 0};
  auto sent = probe.due(0);
  probe.on_datagram(from(answer(n1, sent.at(0).second).at(0), "10.0.0.1:7400"), 1);
  CHECK(probe.done(1));
  CHECK(probe.highest_heard() == 0);
  CHECK(probe.incarnation() == 4000);
}

TEST_CASE("notices for another id, another probe, forged, malformed or "
          "bundled are ignored and counted",
          "[bridge][incarnation]") {
  bridge_state n1{who("n1", 100), key};
  incarnation_probe probe{probe_of("n2", 4000, {"10.0.0.1:7400"}), 0};
  probe.due(0);
  auto notice = [](const std::string& id, std::uint64_t highest,
                   std::uint64_t nonce) {
    wire::Message m;
    auto* n = m.mutable_incarnation_notice();
    n->set_id(id);
    n->set_highest(highest);
    n->set_nonce(nonce);
    return m;
  };
  // For another id, and an old one replayed (another nonce).
  probe.on_datagram(from(seal(n1, notice("n3", 99999, 0x5eed)), "10.0.0.1:7400"), 1);
  probe.on_datagram(from(seal(n1, notice("n2", 99999, 0x01d)), "10.0.0.1:7400"), 1);
  CHECK(probe.counters().notices_ignored == 2);
  // Forged: another key.
  bridge_state forger{who("n1", 100), "not-the-key"};
  probe.on_datagram(from(seal(forger, notice("n2", 99999, 0x5eed)), "10.0.0.1:7400"), 1);
  // Malformed: no id, garbage, and a notice inside a bundle.
  probe.on_datagram(from(seal(n1, notice("", 99999, 0x5eed)), "10.0.0.1:7400"), 1);
  probe.on_datagram(from(std::string("\x0a\xff\xff garbage", 12), "10.0.0.1:7400"), 1);
  wire::Message bundle;
  *bundle.mutable_bundle()->add_parts() = notice("n2", 99999, 0x5eed);
  *bundle.mutable_bundle()->add_parts() = heartbeat();
  probe.on_datagram(from(seal(n1, bundle), "10.0.0.1:7400"), 1);
  CHECK(probe.counters().datagrams_dropped == 4);
  CHECK(probe.counters().notices_taken == 0);
  CHECK_FALSE(probe.done(1));
  CHECK(probe.incarnation() == 4000);
}

TEST_CASE("a probe is answered whatever its incarnation, never recorded, "
          "rate-limited, and never taken from a bundle",
          "[bridge][incarnation]") {
  bridge_limits limits;
  limits.notices_per_second = 2;
  bridge_state n1{who("n1", 100), key, limits};
  bridge_state n2{who("n2", 5000), key};
  REQUIRE(n1.open(seal(n2, heartbeat())));
  bridge_state prober{who("n2", 0), key};
  wire::Message p;
  p.mutable_incarnation_probe()->set_nonce(7);
  auto probe = seal(prober, p);
  // Replayed: answered again (it asserts nothing), within the limit.
  CHECK(answer(n1, probe, 1000).size() == 1);
  CHECK(answer(n1, probe, 1001).size() == 1);
  CHECK(answer(n1, probe, 1002).empty());
  CHECK(n1.counters().probes_unanswered == 1);
  CHECK(answer(n1, probe, 2001).size() == 1); // the next second
  CHECK(n1.counters().dropped_stale_incarnation == 0);
  CHECK(n1.counters().dropped_replayed == 0);
  // n2's window is as it was: the probe (incarnation 0) moved nothing.
  CHECK(n1.open(seal(n2, heartbeat())));
  // In a bundle it is malformed.
  wire::Message bundle;
  *bundle.mutable_bundle()->add_parts() = p;
  *bundle.mutable_bundle()->add_parts() = heartbeat();
  CHECK_FALSE(n1.open(seal(prober, bundle)));
  CHECK(n1.counters().dropped_malformed == 1);
  // Forged: dropped before anything is parsed.
  bridge_state forger{who("n2", 0), "not-the-key"};
  CHECK_FALSE(n1.open(seal(forger, p)));
  CHECK(n1.counters().dropped_unauthenticated == 1);
  // An opened message that is no probe gets no notice.
  auto hb = n1.open(seal(n2, heartbeat()));
  REQUIRE(hb);
  CHECK_FALSE(n1.answer_probe(*hb, 3000));
}

TEST_CASE("a probe of the multicast group stops at the first answer",
          "[bridge][incarnation]") {
  bridge_state n1{who("n1", 100), key};
  bridge_state n2_before{who("n2", 5000), key};
  REQUIRE(n1.open(seal(n2_before, heartbeat())));
  auto cfg = probe_of("n2", 10, {});
  cfg.group = true;
  incarnation_probe probe{cfg, 0};
  auto sent = probe.due(0);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].first.empty());
  probe.on_datagram(from(answer(n1, sent[0].second).at(0), "10.0.0.1:7400"), 1);
  CHECK(probe.done(1));
  CHECK(probe.incarnation() == 5001);
}

TEST_CASE("a probe that never asked anyone waits for its whole window",
          "[bridge][incarnation]") {
  incarnation_probe probe{probe_of("n2", 4000, {}), 0};
  CHECK(probe.due(0).empty());
  CHECK(probe.next_wakeup() == 500);
  CHECK_FALSE(probe.done(499));
  CHECK(probe.done(500));
  CHECK(probe.incarnation() == 4000);
}
