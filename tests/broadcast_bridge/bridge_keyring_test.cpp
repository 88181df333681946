// Two bridges rotate their cluster key step by step (install, use, remove)
// while they talk: no datagram is rejected at any step.
#include <catch2/catch.hpp>

#include <string>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/hmac.hpp"

using namespace dice;

namespace {

const std::string k_old = "the old cluster key";
const std::string k_new = "the new cluster key";

bridge_identity who(const std::string& id) {
  return {"dice", id, "10.0.0." + id.substr(1) + ":7400", 7};
}

wire::Message ping() {
  wire::Message m;
  m.mutable_heartbeat();
  return m;
}

// One datagram each way; how many were accepted.
int exchange(bridge_state& a, bridge_state& b) {
  int ok = 0;
  if (auto d = a.seal(ping(), 1000); d && b.open(*d))
    ++ok;
  if (auto d = b.seal(ping(), 1000); d && a.open(*d))
    ++ok;
  return ok;
}

} // namespace

TEST_CASE("a key rotates between two bridges with no datagram rejected",
          "[bridge][keyring]") {
  bridge_state a(who("n1"), keyring(k_old)), b(who("n2"), keyring(k_old));
  auto id_old = keyring::id_of(k_old), id_new = keyring::id_of(k_new);
  auto step = [&](auto change_a, auto change_b) {
    REQUIRE(change_a(a.keys()).empty());
    CHECK(exchange(a, b) == 2);
    REQUIRE(change_b(b.keys()).empty());
    CHECK(exchange(a, b) == 2);
  };
  CHECK(exchange(a, b) == 2);
  step([&](keyring& r) { return r.install(k_new); },
       [&](keyring& r) { return r.install(k_new); });
  step([&](keyring& r) { return r.use(id_new); },
       [&](keyring& r) { return r.use(id_new); });
  step([&](keyring& r) { return r.remove(id_old); },
       [&](keyring& r) { return r.remove(id_old); });
  for (auto* s : {&a, &b}) {
    const auto& c = s->counters();
    CHECK(c.dropped_unauthenticated == 0);
    CHECK(c.accepted == 7);
    CHECK(c.unknown_key_ids.empty());
    CHECK(s->keys().ids() == std::vector<std::string>{id_new});
  }
  // a signed with the old key until it used the new one (the first
  // exchange and the install step's two), then with the new one.
  const auto& ka = a.counters().by_key;
  CHECK(ka.at(id_old).sent == 3);
  CHECK(ka.at(id_new).sent == 4);
  CHECK(ka.at(id_old).received + ka.at(id_new).received == 7);
  // After the rotation, the old key alone no longer gets in.
  bridge_state stale(who("n3"), keyring(k_old));
  CHECK_FALSE(a.open(*stale.seal(ping(), 1000)));
  CHECK(a.counters().dropped_unauthenticated == 1);
}

TEST_CASE("an envelope without key id (an older sender) is accepted under any key held",
          "[bridge][keyring]") {
  bridge_state b(who("n2"), keyring(k_new));
  REQUIRE(b.keys().install(k_old).empty());
  // As an older node seals it: the tag alone.
  wire::Message m = ping();
  m.set_cluster_id("dice");
  m.set_sender_id("n1");
  m.set_sender_addr("10.0.0.1:7400");
  m.set_incarnation(7);
  m.set_sequence(1);
  wire::Envelope env;
  env.set_version(defaults::protocol_version);
  m.SerializeToString(env.mutable_message());
  env.set_auth_tag(hmac_sha256(k_old, env.message()));
  CHECK(b.open(env.SerializeAsString()));
  CHECK(b.counters().by_key.at(keyring::id_of(k_old)).received == 1);
  CHECK(b.counters().dropped_unauthenticated == 0);
}

TEST_CASE("a datagram under a key not held is dropped and counted per key id, noticed once",
          "[bridge][keyring]") {
  bridge_state a(who("n1"), keyring(k_new)), b(who("n2"), keyring(k_old));
  CHECK(exchange(a, b) == 0);
  CHECK(exchange(a, b) == 0);
  const auto& c = b.counters();
  CHECK(c.dropped_unauthenticated == 2);
  CHECK(c.unknown_key_ids.at(keyring::id_of(k_new)) == 2);
  CHECK(b.take_unknown_key_notices() == std::vector<std::string>{keyring::id_of(k_new)});
  CHECK(b.take_unknown_key_notices().empty());
  // Installing the key lets the same sender in.
  REQUIRE(b.keys().install(k_new).empty());
  CHECK(exchange(a, b) == 1); // b still signs with the old key, which a lacks
  CHECK(a.counters().unknown_key_ids.at(keyring::id_of(k_old)) == 3);
}

TEST_CASE("the ids of unknown keys kept are bounded", "[bridge][keyring]") {
  bridge_state b(who("n2"), keyring(k_old));
  for (int i = 0; i < 100; ++i) {
    bridge_state a(who("n1"), keyring("forged key number " + std::to_string(i)));
    b.open(*a.seal(ping(), 1000));
  }
  const auto& ids = b.counters().unknown_key_ids;
  CHECK(ids.size() <= bridge_counters::unknown_key_ids_limit);
  CHECK(ids.count("other") == 1);
  CHECK(b.counters().dropped_unauthenticated == 100);
  CHECK(b.take_unknown_key_notices().size() < bridge_counters::unknown_key_ids_limit);
}

TEST_CASE("without keys nothing is signed or checked", "[bridge][keyring]") {
  bridge_state a(who("n1"), keyring()), b(who("n2"), keyring());
  CHECK(exchange(a, b) == 2);
  CHECK(a.counters().by_key.empty());
}
