#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/message_differencer.h>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/hmac.hpp"

using namespace dice;
namespace pb = google::protobuf;

namespace {

const std::string key = "cluster-secret";

bridge_identity who(const std::string& id, std::uint64_t incarnation = 7,
                    const std::string& cluster = "dice") {
  // "n1" -> 10.0.0.1:7400
  return {cluster, id, "10.0.0." + id.substr(1) + ":7400", incarnation};
}

wire::Message heartbeat() {
  wire::Message m;
  auto* p = m.mutable_heartbeat()->add_peers();
  p->set_id("n3");
  p->set_addr("10.0.0.3:7400");
  return m;
}

wire::Message with_payload(std::size_t bytes) {
  wire::Message m;
  auto* spec = m.mutable_enqueue()->mutable_spec();
  spec->set_id("t1");
  spec->set_payload(std::string(bytes, 'p'));
  return m;
}

std::string seal(bridge_state& b, wire::Message m, millis now = 1000) {
  auto d = b.seal(std::move(m), now);
  REQUIRE(d);
  return *d;
}

/// Every datagram is accepted or dropped for exactly one reason.
void check_accounting(const bridge_counters& k, std::uint64_t fed) {
  CHECK(k.datagrams_received == fed);
  CHECK(k.datagrams_received == k.accepted + k.dropped());
}

/// Sets every singular scalar field of `m` (recursively into singular
/// sub-messages, one level of repetition) to a non-default value, so a
/// round trip that loses a field shows up.
void fill(pb::Message& m, int depth = 0) {
  const auto* d = m.GetDescriptor();
  const auto* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const auto* f = d->field(i);
    if (f->is_repeated()) {
      if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE && depth < 2)
        fill(*r->AddMessage(&m, f), depth + 1);
      else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING)
        r->AddString(&m, f, "r-" + f->name());
      continue;
    }
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_INT32:
        r->SetInt32(&m, f, -3 - i);
        break;
      case pb::FieldDescriptor::CPPTYPE_INT64:
        r->SetInt64(&m, f, -1'000'000'000'000 - i);
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT32:
        r->SetUInt32(&m, f, 3 + i);
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT64:
        r->SetUInt64(&m, f, 1'000'000'000'000 + i);
        break;
      case pb::FieldDescriptor::CPPTYPE_BOOL:
        r->SetBool(&m, f, true);
        break;
      case pb::FieldDescriptor::CPPTYPE_STRING:
        // bytes may hold anything; proto3 strings must be valid UTF-8.
        if (f->type() == pb::FieldDescriptor::TYPE_BYTES)
          r->SetString(&m, f, "b-" + f->name() + std::string(1, '\0') + "\xff");
        else
          r->SetString(&m, f, "s-" + f->name() + " \xc3\xa9");
        break;
      case pb::FieldDescriptor::CPPTYPE_ENUM:
        r->SetEnum(&m, f, f->enum_type()->value(f->enum_type()->value_count()
                                                - 1));
        break;
      case pb::FieldDescriptor::CPPTYPE_MESSAGE:
        if (depth < 2)
          fill(*r->MutableMessage(&m, f), depth + 1);
        break;
      default:
        break;
    }
  }
}

} // namespace

TEST_CASE("every body kind survives seal and open with its header",
          "[bridge]") {
  const auto* body = wire::Message::descriptor()->FindOneofByName("body");
  REQUIRE(body != nullptr);
  // Heartbeat ... Election: the 13 kinds of the schema, each tried below.
  REQUIRE(body->field_count() >= 13);
  bridge_state sender{who("n1", 42), key};
  bridge_state receiver{who("n2"), key};
  std::set<int> cases_seen;
  for (int i = 0; i < body->field_count(); ++i) {
    const auto* f = body->field(i);
    INFO("body kind " << f->name());
    wire::Message m;
    if (f->message_type() == wire::Bundle::descriptor())
      fill(*m.mutable_bundle()->add_parts()->mutable_heartbeat()); // a part needs a body
    else
      fill(*m.GetReflection()->MutableMessage(&m, f));
    auto original = m;
    auto now = millis{1'700'000'000'000} + i;
    auto out = receiver.open(seal(sender, m, now));
    REQUIRE(out);
    CHECK(out->body_case() == original.body_case());
    CHECK(pb::util::MessageDifferencer::Equals(
      out->GetReflection()->GetMessage(*out, f),
      original.GetReflection()->GetMessage(original, f)));
    CHECK(out->cluster_id() == "dice");
    CHECK(out->sender_id() == "n1");
    CHECK(out->sender_addr() == sender.identity().addr);
    CHECK(out->incarnation() == 42);
    CHECK(out->sequence() == static_cast<std::uint64_t>(i + 1));
    CHECK(out->timestamp_ms() == now);
    cases_seen.insert(out->body_case());
  }
  CHECK(cases_seen.size() == static_cast<std::size_t>(body->field_count()));
  CHECK(receiver.counters().accepted
        == static_cast<std::uint64_t>(body->field_count()));
  CHECK(sender.counters().send_errors == 0);
  check_accounting(receiver.counters(), body->field_count());
}

TEST_CASE("seal overwrites whatever header the caller left in the message",
          "[bridge]") {
  bridge_state sender{who("n1", 3), key};
  bridge_state receiver{who("n2"), key};
  auto m = heartbeat();
  m.set_sender_id("forged");
  m.set_cluster_id("elsewhere");
  m.set_sequence(999);
  auto out = receiver.open(seal(sender, m));
  REQUIRE(out);
  CHECK(out->sender_id() == "n1");
  CHECK(out->cluster_id() == "dice");
  CHECK(out->sequence() == 1);
}

TEST_CASE("the cluster key authenticates datagrams", "[bridge]") {
  SECTION("same key accepts") {
    bridge_state sender{who("n1"), key};
    bridge_state receiver{who("n2"), key};
    CHECK(receiver.open(seal(sender, heartbeat())));
    CHECK(receiver.counters().accepted == 1);
    check_accounting(receiver.counters(), 1);
  }
  SECTION("a different key is dropped as unauthenticated") {
    bridge_state sender{who("n1"), "another-secret"};
    bridge_state receiver{who("n2"), key};
    CHECK_FALSE(receiver.open(seal(sender, heartbeat())));
    CHECK(receiver.counters().dropped_unauthenticated == 1);
    CHECK(receiver.counters().accepted == 0);
    check_accounting(receiver.counters(), 1);
  }
  SECTION("a missing tag is unauthenticated when a key is required") {
    bridge_state sender{who("n1"), ""};
    bridge_state receiver{who("n2"), key};
    auto d = seal(sender, heartbeat());
    wire::Envelope env;
    REQUIRE(env.ParseFromString(d));
    CHECK(env.auth_tag().empty());
    CHECK_FALSE(receiver.open(d));
    CHECK(receiver.counters().dropped_unauthenticated == 1);
    check_accounting(receiver.counters(), 1);
  }
  SECTION("a keyless receiver accepts a keyless sender") {
    bridge_state sender{who("n1"), ""};
    bridge_state receiver{who("n2"), ""};
    auto out = receiver.open(seal(sender, heartbeat()));
    REQUIRE(out);
    CHECK(out->heartbeat().peers(0).id() == "n3");
    CHECK(receiver.counters().accepted == 1);
  }
  SECTION("the tag is the HMAC of the inner message bytes") {
    bridge_state sender{who("n1"), key};
    wire::Envelope env;
    REQUIRE(env.ParseFromString(seal(sender, heartbeat())));
    CHECK(env.auth_tag() == hmac_sha256(key, env.message()));
  }
}

// The key id (Envelope field 4) is serialized last, in 6 bytes: a lookup
// hint outside the tag, so an older node, which knows no key id, still
// checks the tag. Without it the datagram is the sender's message in the
// older format, which is accepted (every key is tried).
constexpr std::size_t key_id_field_bytes = 6;

TEST_CASE("no single flipped bit in a keyed datagram is accepted, but in "
          "the key id hint, where it leaves the very same message",
          "[bridge]") {
  bridge_state sender{who("n1"), key};
  auto m = heartbeat();
  auto d = seal(sender, m);
  wire::Envelope env;
  REQUIRE(env.ParseFromString(d));
  REQUIRE(env.key_id().size() == 4);
  REQUIRE(d.size() > key_id_field_bytes);
  auto hint_from = d.size() - key_id_field_bytes;
  bridge_state receiver{who("n2"), key};
  std::uint64_t fed = 0;
  for (std::size_t byte = 0; byte < d.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto flipped = d;
      flipped[byte] = static_cast<char>(flipped[byte] ^ (1 << bit));
      INFO("byte " << byte << " bit " << bit);
      if (byte < hint_from) {
        CHECK_FALSE(receiver.open(flipped));
        ++fed;
        continue;
      }
      // The hint: dropped, or (its field turned into an unknown one) the
      // sender's own message in the older format, authenticated as such.
      bridge_state other{who("n3"), key};
      if (auto opened = other.open(flipped))
        CHECK(opened->heartbeat().SerializeAsString()
              == m.heartbeat().SerializeAsString());
      else
        CHECK(other.counters().dropped() == 1);
    }
  }
  CHECK(receiver.counters().accepted == 0);
  CHECK(fed == hint_from * 8);
  // The unflipped datagram is still good: the drops were the flips' doing.
  CHECK(receiver.open(d));
  check_accounting(receiver.counters(), fed + 1);
}

TEST_CASE("oversize datagrams are neither sent nor accepted", "[bridge]") {
  bridge_limits small;
  small.max_datagram_bytes = 256;
  SECTION("open drops a datagram over the limit") {
    bridge_state sender{who("n1"), key}; // default limit: this one fits
    bridge_state receiver{who("n2"), key, small};
    auto d = seal(sender, with_payload(400));
    REQUIRE(d.size() > small.max_datagram_bytes);
    CHECK_FALSE(receiver.open(d));
    CHECK(receiver.counters().dropped_oversize == 1);
    // Just under the limit still goes through.
    auto fits = seal(sender, with_payload(100));
    REQUIRE(fits.size() <= small.max_datagram_bytes);
    CHECK(receiver.open(fits));
    check_accounting(receiver.counters(), 2);
  }
  SECTION("seal refuses to produce one and counts a send error") {
    bridge_state sender{who("n1"), key, small};
    CHECK_FALSE(sender.seal(with_payload(400), 1000));
    CHECK(sender.counters().send_errors == 1);
    CHECK(sender.counters().datagrams_sent == 0);
    CHECK(sender.seal(with_payload(10), 1000));
    CHECK(sender.counters().send_errors == 1);
  }
  SECTION("the limit applies to exactly max_datagram_bytes") {
    bridge_state sender{who("n1"), key};
    auto d = seal(sender, with_payload(100));
    bridge_limits exact;
    exact.max_datagram_bytes = d.size();
    bridge_state at_limit{who("n2"), key, exact};
    CHECK(at_limit.open(d));
    exact.max_datagram_bytes = d.size() - 1;
    bridge_state below{who("n3"), key, exact};
    CHECK_FALSE(below.open(d));
    CHECK(below.counters().dropped_oversize == 1);
  }
}

TEST_CASE("datagrams of another version, cluster or from self are dropped",
          "[bridge]") {
  SECTION("unknown protocol version") {
    bridge_state sender{who("n1"), key};
    bridge_state receiver{who("n2"), key};
    wire::Envelope env;
    REQUIRE(env.ParseFromString(seal(sender, heartbeat())));
    env.set_version(defaults::protocol_version + 1);
    CHECK_FALSE(receiver.open(env.SerializeAsString()));
    CHECK(receiver.counters().dropped_version == 1);
    env.set_version(defaults::protocol_version);
    CHECK(receiver.open(env.SerializeAsString()));
    check_accounting(receiver.counters(), 2);
  }
  SECTION("another cluster id") {
    bridge_state stranger{who("n1", 7, "other"), key};
    bridge_state receiver{who("n2"), key};
    CHECK_FALSE(receiver.open(seal(stranger, heartbeat())));
    CHECK(receiver.counters().dropped_cluster == 1);
    check_accounting(receiver.counters(), 1);
  }
  SECTION("our own datagram looped back") {
    bridge_state self{who("n1"), key};
    CHECK_FALSE(self.open(seal(self, heartbeat())));
    CHECK(self.counters().dropped_self == 1);
    check_accounting(self.counters(), 1);
  }
  SECTION("a header without sender or sequence, or without a body") {
    bridge_state receiver{who("n2"), ""};
    auto envelope = [](const wire::Message& m) {
      wire::Envelope env;
      env.set_version(defaults::protocol_version);
      m.SerializeToString(env.mutable_message());
      return env.SerializeAsString();
    };
    auto good = heartbeat();
    good.set_cluster_id("dice");
    good.set_sender_id("n1");
    good.set_sequence(1);
    auto no_sender = good;
    no_sender.clear_sender_id();
    auto no_sequence = good;
    no_sequence.set_sequence(0);
    auto no_body = good;
    no_body.clear_body();
    CHECK_FALSE(receiver.open(envelope(no_sender)));
    CHECK_FALSE(receiver.open(envelope(no_sequence)));
    CHECK_FALSE(receiver.open(envelope(no_body)));
    CHECK(receiver.counters().dropped_malformed == 3);
    CHECK(receiver.open(envelope(good)));
    check_accounting(receiver.counters(), 4);
  }
}

TEST_CASE("a replayed datagram is dropped", "[bridge]") {
  bridge_state sender{who("n1"), key};
  bridge_state receiver{who("n2"), key};
  auto first = seal(sender, heartbeat());
  auto second = seal(sender, heartbeat());
  CHECK(receiver.open(second));
  CHECK(receiver.open(first)); // reordered, not replayed
  CHECK_FALSE(receiver.open(first));
  CHECK_FALSE(receiver.open(second));
  CHECK(receiver.counters().dropped_replayed == 2);
  // A restarted sender (higher incarnation) counts from 1 again.
  bridge_state restarted{who("n1", 8), key};
  CHECK(receiver.open(seal(restarted, heartbeat())));
  // The old incarnation's late datagrams are stale now.
  CHECK_FALSE(receiver.open(seal(sender, heartbeat())));
  CHECK(receiver.counters().dropped_replayed == 2);
  CHECK(receiver.counters().dropped_stale_incarnation == 1);
  check_accounting(receiver.counters(), 6);
}

TEST_CASE("a restarted receiver that kept its replay floors drops its "
          "previous life's datagrams replayed, and takes fresh ones",
          "[bridge]") {
  bridge_state sender{who("n1", 5), key};
  bridge_state old_sender{who("n1", 4), key};
  auto older_life = seal(old_sender, heartbeat());
  bridge_state receiver{who("n2"), key};
  std::vector<std::string> captured;
  for (int i = 0; i < 5; ++i) {
    captured.push_back(seal(sender, heartbeat()));
    REQUIRE(receiver.open(captured.back()));
  }
  // Saved in the data dir, read back by the next start.
  auto kept = decode_replay_floors(encode_replay_floors(receiver.floors()));
  REQUIRE(kept == receiver.floors());

  SECTION("without them, every captured datagram is fresh again") {
    bridge_state forgetful{who("n2"), key};
    CHECK(forgetful.open(older_life));
    for (const auto& d : captured)
      CHECK(forgetful.open(d));
  }
  SECTION("with them, none is, whatever the order") {
    bridge_state restarted{who("n2"), key};
    restarted.restore(kept);
    for (auto i = captured.rbegin(); i != captured.rend(); ++i)
      CHECK_FALSE(restarted.open(*i));
    CHECK_FALSE(restarted.open(older_life));
    CHECK(restarted.counters().dropped_replayed == 5);
    CHECK(restarted.counters().dropped_stale_incarnation == 1);
    // The sender that did not restart goes on where it was.
    CHECK(restarted.open(seal(sender, heartbeat())));
    // And one that restarted is heard at its new incarnation.
    bridge_state sender_again{who("n1", 6), key};
    CHECK(restarted.open(seal(sender_again, heartbeat())));
    check_accounting(restarted.counters(), 8);
  }
}

TEST_CASE("a damaged replay floors file costs its bad lines only",
          "[bridge]") {
  auto floors = decode_replay_floors("3 17 a@127.0.0.1:1\n"
                                     "x 1 b@h:2\n"
                                     "4 99999999999999999999999 c@h:3\n"
                                     "5\n"
                                     "6 7 d@h:4 with space\n");
  CHECK(floors.size() == 2);
  CHECK(floors["a@127.0.0.1:1"] == replay_window::floor{3, 17});
  CHECK(floors["d@h:4 with space"] == replay_window::floor{6, 7});
}

TEST_CASE("random garbage never crashes and is always counted", "[bridge]") {
  const std::uint64_t seed = 20240611;
  INFO("seed " << seed);
  std::mt19937_64 rng{seed};
  bridge_state keyed{who("n2"), key};
  bridge_state keyless{who("n3"), ""};
  const int n = 5000;
  for (int i = 0; i < n; ++i) {
    std::string junk(rng() % 300, '\0');
    for (auto& c : junk)
      c = static_cast<char>(rng());
    CHECK_FALSE(keyed.open(junk));
    keyless.open(junk);
  }
  // An envelope that parses, carrying junk as its message.
  auto valid_prefix = wire::Envelope{};
  valid_prefix.set_version(defaults::protocol_version);
  valid_prefix.set_message(std::string(40, '\x7f'));
  CHECK_FALSE(keyed.open(valid_prefix.SerializeAsString()));
  CHECK_FALSE(keyless.open(valid_prefix.SerializeAsString()));
  CHECK(keyed.counters().accepted == 0);
  check_accounting(keyed.counters(), n + 1);
  check_accounting(keyless.counters(), n + 1);
  CHECK(keyless.counters().dropped_malformed > 0);
}

TEST_CASE("every truncation of a valid datagram is dropped and counted",
          "[bridge]") {
  for (const auto& k : {key, std::string{}}) {
    INFO("keyed: " << !k.empty());
    bridge_state sender{who("n1"), k};
    auto d = seal(sender, with_payload(50));
    bridge_state receiver{who("n2"), k};
    // Keyed, the datagram cut just before its key id hint is the older
    // format of the same message: accepted (by another receiver here, as
    // this one would then find `d` replayed).
    auto old_format = k.empty() ? d.size() : d.size() - key_id_field_bytes;
    std::uint64_t fed = 0;
    for (std::size_t len = 0; len < d.size(); ++len) {
      INFO("length " << len << " of " << d.size());
      if (len == old_format) {
        bridge_state other{who("n3"), k};
        CHECK(other.open(d.substr(0, len)));
        continue;
      }
      CHECK_FALSE(receiver.open(d.substr(0, len)));
      ++fed;
    }
    CHECK(receiver.counters().accepted == 0);
    CHECK(receiver.open(d));
    check_accounting(receiver.counters(), fed + 1);
  }
}

TEST_CASE("sends are counted by outcome", "[bridge]") {
  bridge_state b{who("n1"), key};
  b.count_sent(100, true);
  b.count_sent(50, true);
  b.count_sent(70, false);
  CHECK(b.counters().datagrams_sent == 2);
  CHECK(b.counters().bytes_sent == 150);
  CHECK(b.counters().send_errors == 1);
}

TEST_CASE("messages and their bytes are counted by family, a bundle part "
          "by part", "[bridge]") {
  bridge_state a{who("n1"), key}, b{who("n2"), key};
  wire::Message lock;
  lock.mutable_mutex()->set_resource("db");
  std::vector<wire::Message> parts{heartbeat(), with_payload(40), lock};
  auto datagrams = a.seal_all(parts, 1000);
  REQUIRE(datagrams.size() == 1); // one bundle of three parts
  for (const auto& d : datagrams)
    REQUIRE(b.open(d));
  for (const auto* kind : {"membership", "queue", "mutex"}) {
    INFO(kind);
    const auto& sent = a.counters().by_kind.at(kind);
    const auto& got = b.counters().by_kind.at(kind);
    CHECK(sent.sent == 1);
    CHECK(got.received == 1);
    CHECK(sent.bytes_sent > 0);
    CHECK(got.bytes_received == sent.bytes_sent);
  }
  CHECK(a.counters().by_kind.at("queue").bytes_sent > 40); // the payload
  CHECK(a.counters().by_kind.count("causal") == 0);
  // A dropped datagram counts for no family.
  CHECK_FALSE(b.open(datagrams.front())); // replayed
  CHECK(b.counters().by_kind.at("queue").received == 1);
}

TEST_CASE("a message sealed over --bundle-bytes is counted under its body's "
          "name", "[bridge]") {
  bridge_limits limits;
  limits.bundle_bytes = 600;
  bridge_state a{who("n1"), key, limits};
  auto datagrams = a.seal_all({heartbeat(), with_payload(2000)}, 1000);
  REQUIRE(datagrams.size() == 2); // the large one could not share a frame
  CHECK(datagrams[0].size() <= 600);
  CHECK(datagrams[1].size() > 600);
  CHECK(a.counters().over_bundle_bytes_by_body
        == std::map<std::string, std::uint64_t>{{"enqueue", 1}});
}

TEST_CASE("hmac_sha256 matches RFC 4231", "[bridge]") {
  auto hex = [](const std::string& s) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
      out += digits[c >> 4];
      out += digits[c & 15];
    }
    return out;
  };
  // Test case 1.
  CHECK(hex(hmac_sha256(std::string(20, '\x0b'), "Hi There"))
        == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  // Test case 2: a key shorter than the output.
  CHECK(hex(hmac_sha256("Jefe", "what do ya want for nothing?"))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(tags_equal("abc", "abc"));
  CHECK_FALSE(tags_equal("abc", "abd"));
  CHECK_FALSE(tags_equal("abc", "ab"));
  CHECK_FALSE(tags_equal("", "a"));
}

TEST_CASE("bridge state: a relay re-marks a sealed datagram without breaking "
          "its tag, the receiver reads the mark, and a replayed copy is not "
          "passed on again whatever its mark",
          "[bridge][relay]") {
  bridge_state origin(who("n1"), key);
  bridge_state relay(who("n2"), key);
  bridge_state member(who("n3"), key);
  auto bytes = seal(origin, with_payload(10));

  auto mark = relay_mark::to_members;
  REQUIRE(relay.open(bytes, &mark));
  CHECK(mark == relay_mark::none); // the origin's own copy: read only

  auto first_hand = relay_marked(bytes, relay_mark::first_hand);
  REQUIRE(first_hand.size() > bytes.size());
  bridge_state sp(who("n4"), key);
  mark = relay_mark::none;
  auto opened = sp.open(first_hand, &mark);
  REQUIRE(opened);
  CHECK(mark == relay_mark::first_hand);
  CHECK(opened->sender_id() == "n1"); // still the origin's, signed by it

  // Passed on to a member as a relayed copy: it takes it once.
  auto plain = relay_marked(first_hand, relay_mark::relayed);
  mark = relay_mark::none;
  REQUIRE(member.open(plain, &mark));
  CHECK(mark == relay_mark::relayed);
  // A copy with a stronger mark is still a replay: dropped, never passed on.
  CHECK_FALSE(member.open(relay_marked(plain, relay_mark::first_hand), &mark));
  CHECK(member.counters().dropped_replayed == 1);

  // The mark is outside the tag, the message is not: a forged body fails.
  auto forged = first_hand;
  forged[forged.size() / 2] ^= 0x20;
  bridge_state other(who("n5"), key);
  CHECK_FALSE(other.open(forged));
  // A mark this version does not know is read as none.
  mark = relay_mark::first_hand;
  REQUIRE(other.open(relay_marked(bytes, static_cast<relay_mark>(9)), &mark));
  CHECK(mark == relay_mark::none);
  // Bytes that are no datagram cannot be re-marked.
  CHECK(relay_marked("not a datagram \xff\xff", relay_mark::first_hand).empty());
}
