#include <catch2/catch.hpp>

#include "common/emitted_events.hpp"
#include "communication/communication.hpp"
#include "communication/communication_machine.hpp"

using namespace dice;

namespace {

wire::Message from(const std::string& sender, const std::string& addr,
                   wire::Message m) {
  m.set_sender_id(sender);
  m.set_sender_addr(addr);
  m.set_incarnation(1);
  return m;
}

wire::Message heartbeat() {
  wire::Message m;
  m.mutable_heartbeat();
  return m;
}

std::vector<std::pair<std::string, std::string>> addresses(const ev::events& out) {
  std::vector<std::pair<std::string, std::string>> xs;
  for (const auto& a : test::emitted<ev::peer_address>(out))
    xs.emplace_back(a.peer, a.addr);
  return xs;
}

} // namespace

TEST_CASE("communication tells where a peer listens when it is first heard "
          "or moves, and takes the message as it would anyway",
          "[communication]") {
  communication_machine c("a", "a#1", queue_config{});
  ev::events out;
  c.on_received(from("b", "127.0.0.1:7402", heartbeat()), 0, out);
  CHECK(addresses(out) == decltype(addresses(out)){{"b", "127.0.0.1:7402"}});

  // Heard again at the same address: nothing new to tell.
  out.clear();
  wire::TaskSpec spec;
  spec.set_id("t");
  spec.set_enqueuer("b");
  wire::OpId op;
  op.set_origin("b#1");
  op.set_seq(1);
  c.on_received(from("b", "127.0.0.1:7402", make_enqueue(spec, op)), 1, out);
  CHECK(addresses(out).empty());
  // The ENQUEUE itself still reached known_tasks.
  CHECK(test::emitted<ev::merge_message>(out).size() == 1);

  // Restarted elsewhere: the new address.
  out.clear();
  c.on_received(from("b", "127.0.0.1:7502", heartbeat()), 2, out);
  CHECK(addresses(out) == decltype(addresses(out)){{"b", "127.0.0.1:7502"}});

  // Our own looped-back message and a sender without an address tell nothing.
  out.clear();
  c.on_received(from("a", "127.0.0.1:7401", heartbeat()), 3, out);
  c.on_received(from("c", "", heartbeat()), 3, out);
  CHECK(addresses(out).empty());
}
