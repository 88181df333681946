#include <set>

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

// Where a message for `peer` goes: the address of its unicast, or "" if
// none was sent.
std::string sent_to(communication_machine& c, const std::string& peer) {
  ev::events out;
  c.on(ev::send_to{peer, heartbeat()}, 0, out);
  auto u = test::emitted<ev::unicast>(out);
  REQUIRE(u.size() == 1);
  return u.front().addr;
}

} // namespace

TEST_CASE("communication sends a peer's messages where its messages come "
          "from, and takes each message as it would anyway",
          "[communication]") {
  communication_machine c("a", "a#1", queue_config{});
  CHECK(sent_to(c, "b").empty()); // never heard from
  CHECK(c.counters().unaddressed == 1);
  ev::events out;
  c.on_received(from("b", "127.0.0.1:7402", heartbeat()), 0, out);
  CHECK(sent_to(c, "b") == "127.0.0.1:7402");

  wire::TaskSpec spec;
  spec.set_id("t");
  spec.set_enqueuer("b");
  wire::OpId op;
  op.set_origin("b#1");
  op.set_seq(1);
  out.clear();
  c.on_received(from("b", "127.0.0.1:7402", make_enqueue(spec, op)), 1, out);
  // The ENQUEUE itself still reached known_tasks.
  CHECK(test::emitted<ev::merge_message>(out).size() == 1);
  SECTION("the enqueuer is acknowledged at once, where it listens") {
    out.clear();
    c.send_acks(out);
    auto acks = test::emitted<ev::unicast>(out);
    REQUIRE(acks.size() == 1);
    CHECK(acks.front().addr == "127.0.0.1:7402");
    REQUIRE(acks.front().message.has_ack());
    auto seen = version_vector::from_wire(acks.front().message.ack().seen());
    CHECK(seen.get("b#1") == 1);
    out.clear();
    c.send_acks(out); // once
    CHECK(out.empty());
  }

  // Restarted elsewhere: the new address.
  c.on_received(from("b", "127.0.0.1:7502", heartbeat()), 2, out);
  CHECK(sent_to(c, "b") == "127.0.0.1:7502");

  // Our own looped-back message and a sender without an address change
  // nothing.
  c.on_received(from("a", "127.0.0.1:7401", heartbeat()), 3, out);
  c.on_received(from("c", "", heartbeat()), 3, out);
  CHECK(sent_to(c, "a").empty());
  CHECK(sent_to(c, "c").empty());
}

TEST_CASE("a submit is acknowledged by a replica's Ack, without waiting for "
          "its heartbeat",
          "[communication]") {
  communication_machine c("a", "a#1", queue_config{});
  ev::events out;
  c.on_received(from("b", "127.0.0.1:7402", heartbeat()), 0, out);
  wire::TaskSpec spec;
  spec.set_id("t");
  out.clear();
  c.on(ev::originate{make_enqueue(spec, {}), true}, 1, out);
  CHECK(test::emitted<ev::acknowledged>(out).empty());
  CHECK_FALSE(c.acknowledged("t"));
  wire::Message ack;
  version_vector seen;
  SECTION("an Ack that does not cover the op changes nothing") {
    seen.observe("a#1", 2); // past a gap: op 1 not seen
    seen.to_wire(ack.mutable_ack()->mutable_seen());
    out.clear();
    c.on_received(from("b", "127.0.0.1:7402", ack), 2, out);
    CHECK_FALSE(c.acknowledged("t"));
  }
  SECTION("an Ack covering it answers the submit") {
    seen.observe("a#1", 1);
    seen.to_wire(ack.mutable_ack()->mutable_seen());
    out.clear();
    c.on_received(from("b", "127.0.0.1:7402", ack), 2, out);
    CHECK(test::emitted<ev::acknowledged>(out).size() == 1);
    CHECK(c.acknowledged("t"));
  }
}

TEST_CASE("of a burst of submits, an Ack answers exactly those it covers, "
          "contiguous or past a gap",
          "[communication]") {
  communication_machine c("a", "a#1", queue_config{});
  ev::events out;
  c.on_received(from("b", "127.0.0.1:7402", heartbeat()), 0, out);
  for (int i = 1; i <= 6; ++i) {
    wire::TaskSpec spec;
    spec.set_id("t" + std::to_string(i));
    c.on(ev::originate{make_enqueue(spec, {}), true}, 1, out);
  }
  CHECK(test::emitted<ev::acknowledged>(out).empty());
  // Ops 1 to 3 in order, 5 past the gap at 4.
  version_vector seen;
  for (std::uint64_t s : {1, 2, 3, 5})
    seen.observe("a#1", s);
  wire::Message ack;
  seen.to_wire(ack.mutable_ack()->mutable_seen());
  out.clear();
  c.on_received(from("b", "127.0.0.1:7402", ack), 2, out);
  std::set<std::string> answered;
  for (auto& a : test::emitted<ev::acknowledged>(out))
    answered.insert(a.task_id);
  CHECK(answered == std::set<std::string>{"t1", "t2", "t3", "t5"});
  // Each is answered once: the same Ack again answers nothing.
  out.clear();
  c.on_received(from("b", "127.0.0.1:7402", ack), 3, out);
  CHECK(test::emitted<ev::acknowledged>(out).empty());
  CHECK_FALSE(c.acknowledged("t4"));
  CHECK_FALSE(c.acknowledged("t6"));
}

namespace {

wire::TaskSpec task(const std::string& kind, const std::string& payload = "") {
  wire::TaskSpec t;
  t.set_id("t1");
  t.set_kind(kind);
  t.set_payload(payload);
  return t;
}

} // namespace

TEST_CASE("heartbeats advertise what a node can run; a node knows what its "
          "live peers run and forgets a dead one's",
          "[communication]") {
  queue_config with_shell;
  with_shell.runner = runner_capabilities{{"echo", "shell"}, {"/bin/date"}};
  communication_machine b("b", "b@1", with_shell);
  wire::Message hb = heartbeat();
  b.fill_heartbeat(hb.mutable_heartbeat());
  REQUIRE(hb.heartbeat().info().kinds_size() == 2);

  queue_config plain;
  plain.runner = runner_capabilities{{"echo"}, {}};
  communication_machine a("a", "a@1", plain);
  auto shell = task("shell", "/bin/date -u");
  CHECK_FALSE(anyone_runs(a.runners(), shell));
  CHECK(kinds_run(a.runners()) == std::vector<std::string>{"echo"});

  ev::events out;
  a.on_received(from("b", "10.0.0.2:7000", hb), 0, out);
  CHECK(anyone_runs(a.runners(), shell));
  CHECK_FALSE(anyone_runs(a.runners(), task("shell", "/bin/rm -rf /")));
  CHECK(kinds_run(a.runners()) == std::vector<std::string>{"echo", "shell"});

  a.on_peer_dead("b", 10, out);
  CHECK_FALSE(anyone_runs(a.runners(), shell));
}

TEST_CASE("a node that advertises nothing counts as running every task",
          "[communication]") {
  std::vector<runner_capabilities> nodes{runner_capabilities{{"echo"}, {}}};
  CHECK_FALSE(anyone_runs(nodes, task("sleep")));
  nodes.push_back(runner_capabilities{});
  CHECK(anyone_runs(nodes, task("sleep")));
}
