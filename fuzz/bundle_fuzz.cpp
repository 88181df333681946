// Bundles both ways. The input is a bundle size (2 bytes), a datagram
// limit (1 byte) and a serialized wire::Bundle. Received: the bundle comes
// signed from a peer and is opened and taken apart. Sent: its parts go
// through seal_all under those limits, as the bridge sends a burst, and must
// arrive whole, in order, each datagram within the bundle size unless it
// carries one message alone.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "broadcast_bridge/bundle.hpp"
#include "fuzz_inputs.hpp"

namespace {

using namespace dice;
using namespace dice::fuzz;

// Receiving: the bundle as a keyed peer would sign it.
void receive(const wire::Bundle& bundle) {
  auto m = with_header(wire::Message{}, 1);
  *m.mutable_bundle() = bundle;
  auto receiver = make_receiver(true);
  open_and_route(receiver, {sign(m.SerializeAsString())});
}

wire::Message body_only(wire::Message m) {
  m.clear_cluster_id();
  m.clear_sender_id();
  m.clear_sender_addr();
  m.clear_incarnation();
  m.clear_sequence();
  m.clear_timestamp_ms();
  return m;
}

// Sending: what a node's subsystems broadcast at once (bodies set, never a
// bundle) packed under `limits`, then received by a peer.
void send(const wire::Bundle& bundle, bridge_limits limits) {
  std::vector<wire::Message> parts;
  for (const auto& p : bundle.parts())
    // A notice naming no id is malformed: the bridge never builds one.
    if (p.body_case() != wire::Message::BODY_NOT_SET && !p.has_bundle()
        && !(p.has_incarnation_notice() && p.incarnation_notice().id().empty()))
      parts.push_back(p);
  bridge_state sender({cluster_id, sender_id, "127.0.0.2:7400", 1}, cluster_key,
                      limits);
  auto datagrams = sender.seal_all(parts, 1'700'000'000'000);
  auto bound = std::min(limits.bundle_bytes, limits.max_datagram_bytes);
  auto receiver = make_receiver(true);
  std::vector<wire::Message> arrived;
  for (const auto& d : datagrams) {
    require(d.size() <= limits.max_datagram_bytes,
            "no datagram sent over the datagram limit");
    auto opened = receiver.open(d);
    require(opened.has_value(), "a peer accepts every datagram sent");
    require(!opened->has_bundle() || d.size() <= bound,
            "a bundle stays within the bundle size");
    for (auto& m : unbundle(std::move(*opened)))
      arrived.push_back(body_only(std::move(m)));
  }
  // Only a part too large for a datagram on its own may be left out.
  require(sender.counters().send_errors + arrived.size() == parts.size(),
          "every part is sent or counted as a send error");
  // What arrived is what was sent, in order, less the parts refused.
  using google::protobuf::util::MessageDifferencer;
  std::size_t next = 0;
  for (const auto& a : arrived) {
    while (next < parts.size()
           && !MessageDifferencer::Equals(body_only(parts[next]), a))
      ++next;
    require(next < parts.size(), "parts arrive whole and in order");
    ++next;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size < 3)
    return 0;
  bridge_limits limits;
  limits.bundle_bytes = (std::size_t{data[0]} << 8 | data[1]) % 4096;
  limits.max_datagram_bytes = 256 + std::size_t{data[2]} * 64;
  wire::Bundle bundle;
  if (!bundle.ParseFromArray(data + 3, static_cast<int>(size - 3)))
    return 0;
  receive(bundle);
  send(bundle, limits);
  return 0;
}
