// Bundles: several messages of one sender in one datagram.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/bundle.hpp"

using namespace dice;

namespace {

const std::string key = "cluster-secret";

wire::Message enqueue(const std::string& id, std::size_t payload = 16) {
  wire::Message m;
  auto* spec = m.mutable_enqueue()->mutable_spec();
  spec->set_id(id);
  spec->set_payload(std::string(payload, 'p'));
  return m;
}

std::vector<wire::Message> enqueues(std::size_t n, std::size_t payload = 16) {
  std::vector<wire::Message> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(enqueue("t" + std::to_string(i), payload));
  return out;
}

/// "t0" .. "t<n-1>": the ids of enqueues(n).
std::vector<std::string> ids_upto(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back("t" + std::to_string(i));
  return out;
}

/// The task ids of the ENQUEUEs `receiver` finds in `datagrams`, in order.
std::vector<std::string> received(bridge_state& receiver,
                                  const std::vector<std::string>& datagrams) {
  std::vector<std::string> ids;
  for (const auto& d : datagrams) {
    auto opened = receiver.open(d);
    REQUIRE(opened);
    for (const auto& m : unbundle(std::move(*opened)))
      ids.push_back(m.enqueue().spec().id());
  }
  return ids;
}

/// Seals `m` alone, whatever its body: how a faulty sender would.
std::string seal_raw(bridge_state& b, wire::Message m) {
  auto d = b.seal(std::move(m), 1000);
  REQUIRE(d);
  return *d;
}

} // namespace

TEST_CASE("pack_bundles keeps order, leaves a lone message plain and "
          "splits at the budget",
          "[bridge][bundle]") {
  auto one = pack_bundles(enqueues(1), 60'000);
  REQUIRE(one.size() == 1);
  CHECK(one[0].has_enqueue());

  auto three = pack_bundles(enqueues(3), 60'000);
  REQUIRE(three.size() == 1);
  REQUIRE(three[0].bundle().parts_size() == 3);
  for (int i = 0; i < 3; ++i)
    CHECK(three[0].bundle().parts(i).enqueue().spec().id()
          == "t" + std::to_string(i));

  // Parts of ~420 bytes against a budget of 1000: two per bundle.
  auto split = pack_bundles(enqueues(5, 400), 1000);
  REQUIRE(split.size() == 3);
  CHECK(split[0].bundle().parts_size() == 2);
  CHECK(split[1].bundle().parts_size() == 2);
  CHECK(split[2].has_enqueue()); // the fifth, alone
  CHECK(split[2].enqueue().spec().id() == "t4");
  for (const auto& m : split)
    CHECK(m.ByteSizeLong() <= 1000);

  CHECK(pack_bundles({}, 1000).empty());
}

TEST_CASE("pack_bundles sends an identity probe or notice alone, between "
          "the bundles of what came before and after it",
          "[bridge][bundle][incarnation]") {
  auto parts = enqueues(2);
  wire::Message probe;
  probe.mutable_incarnation_probe()->set_nonce(7);
  parts.push_back(probe);
  for (auto& m : enqueues(2))
    parts.push_back(m);
  auto packed = pack_bundles(std::move(parts), 60'000);
  REQUIRE(packed.size() == 3);
  CHECK(packed[0].bundle().parts_size() == 2);
  CHECK(packed[1].has_incarnation_probe());
  CHECK(packed[2].bundle().parts_size() == 2);
}

TEST_CASE("a burst sealed together arrives as one datagram and comes apart "
          "in order with the sender's header",
          "[bridge][bundle]") {
  bridge_limits whole;
  whole.bundle_bytes = whole.max_datagram_bytes;
  bridge_state sender{{"dice", "n1", "10.0.0.1:7400", 42}, key, whole};
  bridge_state receiver{{"dice", "n2", "10.0.0.2:7400", 7}, key, whole};
  auto datagrams = sender.seal_all(enqueues(100), 1234);
  REQUIRE(datagrams.size() == 1);
  CHECK(sender.counters().bundles_sent == 1);
  auto opened = receiver.open(datagrams[0]);
  REQUIRE(opened);
  auto parts = unbundle(std::move(*opened));
  REQUIRE(parts.size() == 100);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    CHECK(parts[i].enqueue().spec().id() == "t" + std::to_string(i));
    CHECK(parts[i].sender_id() == "n1");
    CHECK(parts[i].sender_addr() == "10.0.0.1:7400");
    CHECK(parts[i].incarnation() == 42);
    CHECK(parts[i].cluster_id() == "dice");
    CHECK(parts[i].timestamp_ms() == 1234);
  }
  CHECK(receiver.counters().accepted == 1);
  CHECK(receiver.counters().bundles_received == 1);
  // The same datagram again is a replay, bundle or not.
  CHECK_FALSE(receiver.open(datagrams[0]));
  CHECK(receiver.counters().dropped_replayed == 1);
}

TEST_CASE("by default a bundle fits one Ethernet frame, bundle_bytes 0 "
          "sends every message alone",
          "[bridge][bundle]") {
  bridge_state receiver{{"dice", "n2", "10.0.0.2:7400", 1}, key};
  auto want = ids_upto(100);

  bridge_state framed{{"dice", "n1", "10.0.0.1:7400", 1}, key};
  auto datagrams = framed.seal_all(enqueues(100), 1000);
  for (const auto& d : datagrams)
    CHECK(d.size() <= defaults::bundle_bytes);
  // ~30 bytes a part: a few dozen per frame, far fewer datagrams than parts.
  CHECK(datagrams.size() >= 2);
  CHECK(datagrams.size() <= 10);
  CHECK(received(receiver, datagrams) == want);

  bridge_limits none;
  none.bundle_bytes = 0;
  bridge_state alone{{"dice", "n3", "10.0.0.3:7400", 1}, key, none};
  auto singles = alone.seal_all(enqueues(100), 1000);
  CHECK(singles.size() == 100);
  CHECK(alone.counters().bundles_sent == 0);
  CHECK(received(receiver, singles) == want);
}

TEST_CASE("seal_all fills datagrams up to the size limit and drops only a "
          "part too large alone",
          "[bridge][bundle]") {
  bridge_limits small;
  small.max_datagram_bytes = 2000;
  small.bundle_bytes = 2000;
  bridge_state sender{{"dice", "n1", "10.0.0.1:7400", 1}, key, small};
  bridge_state receiver{{"dice", "n2", "10.0.0.2:7400", 1}, key, small};
  auto parts = enqueues(10, 300);
  parts.insert(parts.begin() + 5, enqueue("huge", 5000));
  auto datagrams = sender.seal_all(std::move(parts), 1000);
  CHECK(sender.counters().send_errors == 1); // "huge"
  for (const auto& d : datagrams)
    CHECK(d.size() <= small.max_datagram_bytes);
  CHECK(datagrams.size() >= 2);
  CHECK(datagrams.size() <= 4);
  CHECK(received(receiver, datagrams) == ids_upto(10));
}

TEST_CASE("an authenticated but ill-formed bundle is dropped as malformed",
          "[bridge][bundle]") {
  bridge_state sender{{"dice", "n1", "10.0.0.1:7400", 1}, key};
  bridge_state receiver{{"dice", "n2", "10.0.0.2:7400", 1}, key};
  wire::Message empty;
  empty.mutable_bundle();
  wire::Message nested;
  *nested.mutable_bundle()->add_parts() = enqueue("a");
  nested.mutable_bundle()->add_parts()->mutable_bundle()->add_parts()
    ->CopyFrom(enqueue("b"));
  wire::Message bodiless;
  *bodiless.mutable_bundle()->add_parts() = enqueue("a");
  bodiless.mutable_bundle()->add_parts(); // no body
  for (auto* m : {&empty, &nested, &bodiless})
    CHECK_FALSE(receiver.open(seal_raw(sender, *m)));
  CHECK(receiver.counters().dropped_malformed == 3);
  CHECK(receiver.counters().accepted == 0);
}

TEST_CASE("a part cannot speak for another sender", "[bridge][bundle]") {
  bridge_state sender{{"dice", "n1", "10.0.0.1:7400", 5}, key};
  bridge_state receiver{{"dice", "n2", "10.0.0.2:7400", 1}, key};
  auto forged = enqueue("a");
  forged.set_sender_id("n9");
  forged.set_incarnation(99);
  forged.set_cluster_id("other");
  auto datagrams = sender.seal_all({forged, enqueue("b")}, 1000);
  REQUIRE(datagrams.size() == 1);
  auto opened = receiver.open(datagrams[0]);
  REQUIRE(opened);
  auto parts = unbundle(std::move(*opened));
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].sender_id() == "n1");
  CHECK(parts[0].incarnation() == 5);
  CHECK(parts[0].cluster_id() == "dice");
  CHECK(parts[0].enqueue().spec().id() == "a");
}
