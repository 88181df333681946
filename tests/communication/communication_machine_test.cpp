#include <set>

#include <catch2/catch.hpp>

#include "common/emitted_events.hpp"
#include "vocabulary/queue_messages.hpp"
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

// Which node a message for `peer` goes to (the bridge resolves the id).
std::string sent_to(communication_machine& c, const std::string& peer) {
  ev::events out;
  c.on(ev::send_to{peer, heartbeat()}, 0, out);
  auto u = test::emitted<ev::unicast>(out);
  REQUIRE(u.size() == 1);
  return u.front().peer;
}

} // namespace

TEST_CASE("communication sends a peer's messages to its node id (the bridge "
          "knows where it listens), and takes each message as it would "
          "anyway",
          "[communication]") {
  communication_machine c("a", "a#1", queue_config{});
  CHECK(sent_to(c, "b") == "b"); // even never heard from: the bridge counts it
  ev::events out;
  c.on_received(from("b", "127.0.0.1:7402", heartbeat()), 0, out);

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
    CHECK(acks.front().peer == "b");
    REQUIRE(acks.front().message.has_ack());
    auto seen = version_vector::from_wire(acks.front().message.ack().seen());
    CHECK(seen.get("b#1") == 1);
    out.clear();
    c.send_acks(out); // once
    CHECK(out.empty());
  }
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

TEST_CASE("heartbeats advertise what a node can run, a node knows what its "
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

namespace {

wire::Message heard(const std::string& sender, std::uint64_t incarnation,
                    wire::Message m) {
  m.set_sender_id(sender);
  m.set_sender_addr(sender + ":7000");
  m.set_incarnation(incarnation);
  return m;
}

wire::Message reporting(const version_vector& v) {
  auto m = heartbeat();
  v.to_wire(m.mutable_heartbeat()->mutable_versions());
  return m;
}

wire::Message enqueue_op(const std::string& task, const std::string& origin,
                         std::uint64_t seq) {
  wire::TaskSpec spec;
  spec.set_id(task);
  spec.set_kind("echo");
  return make_enqueue(spec, make_op_id(origin, seq));
}

bool in_heartbeat(const communication_machine& c, const std::string& origin) {
  wire::Heartbeat hb;
  c.fill_heartbeat(&hb);
  for (const auto& e : hb.versions())
    if (e.origin() == origin)
      return true;
  return false;
}

} // namespace

TEST_CASE("an origin superseded by a restart leaves the version vector once "
          "every live peer has its ops, and its late ops are not news",
          "[communication][restarts]") {
  queue_config cfg;
  cfg.prune_superseded_after_ms = 1000;
  communication_machine a("a", "a#1", cfg);
  ev::events out;
  a.on_received(heard("b", 1, heartbeat()), 0, out);
  a.on_received(heard("b", 1, enqueue_op("t1", "b#1", 1)), 1, out);
  a.on_received(heard("b", 1, enqueue_op("t2", "b#1", 2)), 2, out);
  REQUIRE(a.seen().get("b#1") == 2);
  version_vector lagging;
  lagging.observe("b#1", 1);
  a.on_received(heard("c", 1, reporting(lagging)), 3, out);

  // b restarts: its old origin issues nothing more.
  a.on_received(heard("b", 2, heartbeat()), 100, out);
  a.tick(500, out);
  CHECK(a.seen().get("b#1") == 2); // too soon
  a.tick(1200, out);
  CHECK(a.seen().get("b#1") == 2); // c still lacks op 2
  CHECK(in_heartbeat(a, "b#1"));

  version_vector caught_up = lagging;
  caught_up.observe("b#1", 2);
  a.on_received(heard("c", 1, reporting(caught_up)), 1300, out);
  auto due = a.next_due();
  REQUIRE(due);
  a.tick(std::max<millis>(*due, 2300), out);
  CHECK(a.seen().get("b#1") == 0);
  CHECK_FALSE(in_heartbeat(a, "b#1"));
  CHECK(a.counters().origins_pruned == 1);

  // A late copy of its op, and a peer that has not pruned it yet: neither
  // is taken for news nor makes this replica ask for ops.
  out.clear();
  a.on_received(heard("c", 1, enqueue_op("t2", "b#1", 2)), 2400, out);
  a.on_received(heard("c", 1, reporting(caught_up)), 2500, out);
  a.on_received(heard("c", 1, reporting(caught_up)), 2700, out);
  CHECK(test::emitted<ev::merge_message>(out).empty());
  CHECK(test::emitted<ev::unicast>(out).empty());
  CHECK(a.seen().get("b#1") == 0);
}

TEST_CASE("a node's own earlier incarnations are superseded by its current one",
          "[communication][restarts]") {
  queue_config cfg;
  cfg.prune_superseded_after_ms = 1000;
  communication_machine a("a", "a#7", cfg);
  ev::events out;
  a.on_received(heard("b", 1, heartbeat()), 0, out);
  // A sync reply relays ops of this node's previous incarnation.
  a.on_received(heard("b", 1, enqueue_op("t1", "a#6", 1)), 1, out);
  REQUIRE(a.seen().get("a#6") == 1);
  version_vector has;
  has.observe("a#6", 1);
  a.on_received(heard("b", 1, reporting(has)), 2, out);
  a.tick(1500, out);
  CHECK(a.seen().get("a#6") == 0);
}
