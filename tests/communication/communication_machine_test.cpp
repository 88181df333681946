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

TEST_CASE("a node started alone acknowledges a submit at once, a node "
          "started with peers to join waits until a peer holds it, and one "
          "whose every peer died acknowledges alone again",
          "[communication]") {
  wire::TaskSpec spec;
  spec.set_id("t");
  ev::events out;
  SECTION("alone") {
    communication_machine c("a", "a#1", queue_config{});
    c.on(ev::originate{make_enqueue(spec, {}), true}, 1, out);
    CHECK(c.acknowledged("t"));
  }
  SECTION("joining, before it has met a peer: not acknowledged") {
    // Its seed may be slow to answer; if it crashed now, an acknowledged
    // task would be lost with it.
    communication_machine c("a", "a#1", queue_config{}, true);
    c.on(ev::originate{make_enqueue(spec, {}), true}, 1, out);
    CHECK(test::emitted<ev::acknowledged>(out).empty());
    CHECK_FALSE(c.acknowledged("t"));
    wire::Message hb = heartbeat();
    version_vector seen;
    seen.observe("a#1", 1);
    seen.to_wire(hb.mutable_heartbeat()->mutable_versions());
    out.clear();
    c.on_received(from("b", "127.0.0.1:7402", hb), 2, out);
    CHECK(c.acknowledged("t"));
  }
  SECTION("joining, but no peer answers within join_wait_ms: alone") {
    communication_machine c("a", "a#1", queue_config{}, true);
    c.tick(0, out);
    c.on(ev::originate{make_enqueue(spec, {}), true}, 1, out);
    c.tick(communication_machine::join_wait_ms - 1, out);
    CHECK_FALSE(c.acknowledged("t"));
    c.tick(communication_machine::join_wait_ms, out);
    CHECK(c.acknowledged("t"));
  }
  SECTION("joining, once every peer it met has died") {
    communication_machine c("a", "a#1", queue_config{}, true);
    c.on_received(from("b", "127.0.0.1:7402", heartbeat()), 0, out);
    c.on(ev::originate{make_enqueue(spec, {}), true}, 1, out);
    CHECK_FALSE(c.acknowledged("t"));
    out.clear();
    c.on_peer_dead("b", 2, out);
    CHECK(c.acknowledged("t"));
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

TEST_CASE("the kinds a worker serves are advertised from the next heartbeat "
          "on, and withdrawn when it leaves",
          "[communication]") {
  queue_config plain;
  plain.runner = runner_capabilities{{"echo"}, {}};
  communication_machine b("b", "b@1", plain);
  communication_machine a("a", "a@1", plain);
  ev::events out;
  auto heard = [&] {
    wire::Message hb = heartbeat();
    b.fill_heartbeat(hb.mutable_heartbeat());
    a.on_received(from("b", "10.0.0.2:7000", hb), 0, out);
  };
  auto changes = b.heartbeat_changes();
  b.on(ev::runner_changed{runner_capabilities{{"echo", "resize"}, {}}}, 0, out);
  CHECK(b.heartbeat_changes() == changes + 1); // a heartbeat says so soon
  heard();
  CHECK(kinds_run(a.runners()) == std::vector<std::string>{"echo", "resize"});
  CHECK(anyone_runs(a.runners(), task("resize")));
  b.on(ev::runner_changed{runner_capabilities{{"echo"}, {}}}, 0, out);
  heard();
  CHECK_FALSE(anyone_runs(a.runners(), task("resize")));
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

namespace {

// One chunk of a snapshot answer: the tasks after `after`, and whether more
// chunks of the snapshot (more) or of this answer (continued) follow.
wire::Message snapshot_chunk(const std::string& after, const std::string& task,
                             bool more, bool continued,
                             const version_vector* base) {
  wire::Message m;
  auto* r = m.mutable_sync_reply();
  if (base)
    base->to_wire(r->mutable_snapshot_versions());
  r->set_snapshot_after(after);
  auto* t = r->add_snapshot();
  t->mutable_spec()->set_id(task);
  t->mutable_spec()->set_kind("echo");
  r->set_snapshot_more(more);
  r->set_continued(continued);
  return m;
}

} // namespace

TEST_CASE("a snapshot whose last chunk overtakes an earlier one still has "
          "the superseded origins it brought pruned",
          "[communication][restarts][snapshot]") {
  // An answer is several chunks sent at once; with jittered delays its last
  // chunk often arrives first, and the transfer completes on a chunk that
  // says more of the answer follow. The origins the snapshot brought came
  // without their ops, so nothing else marks them superseded.
  queue_config cfg;
  cfg.prune_superseded_after_ms = 1000;
  communication_machine a("a", "a#1", cfg);
  ev::events out;
  a.on_received(heard("b", 2, heartbeat()), 0, out); // b restarted: b#1 is old
  version_vector base;
  base.observe("b#1", 1);
  base.observe("b#2", 1);
  base.observe("c#1", 1);
  a.on_received(heard("c", 1, reporting(base)), 1, out);
  // Chunks 1, 3 (the last of the answer), then 2 (which says more of the
  // answer follow, as it was sent before 3).
  a.on_received(heard("c", 1, snapshot_chunk("", "t1", true, true, &base)), 10,
                out);
  a.on_received(heard("c", 1, snapshot_chunk("t2", "t3", false, false, nullptr)),
                11, out);
  CHECK(a.seen().get("b#1") == 0); // waits for the chunk before it
  a.on_received(heard("c", 1, snapshot_chunk("t1", "t2", true, true, nullptr)),
                12, out);
  REQUIRE(a.seen().get("b#1") == 1); // complete: raised to the base
  CHECK(a.counters().snapshots_applied == 1);
  // Every peer reports after b#1 was found superseded: only then do its
  // reports say all it holds of b#1.
  a.on_received(heard("b", 2, reporting(base)), 20, out);
  a.on_received(heard("c", 1, reporting(base)), 20, out);
  a.tick(1500, out);
  CHECK(a.seen().get("b#1") == 0);
  CHECK(a.seen().get("b#2") == 1);
  CHECK(a.counters().origins_pruned == 1);
}

TEST_CASE("past the heartbeat budget, settled superseded origins leave "
          "without waiting, oldest first, one a peer still lacks stays",
          "[communication][restarts][heartbeat]") {
  queue_config cfg;
  cfg.prune_superseded_after_ms = 30'000;
  communication_machine a("a", "a#1", cfg);
  ev::events out;
  a.on_received(heard("b", 1, heartbeat()), 0, out);
  a.on_received(heard("c", 1, heartbeat()), 0, out);
  // Old incarnations of d, each with one op both peers have, and one (d#9)
  // that c lacks.
  version_vector all;
  for (int inc = 1; inc <= 9; ++inc) {
    auto origin = "d#" + std::to_string(inc);
    a.on_received(heard("b", 1, enqueue_op("t" + std::to_string(inc), origin, 1)),
                  inc, out);
    all.observe(origin, 1);
  }
  auto lacking = all;
  lacking.forget("d#9");
  a.on_received(heard("b", 1, reporting(all)), 20, out);
  a.on_received(heard("c", 1, reporting(lacking)), 20, out);
  a.on_received(heard("d", 10, heartbeat()), 30, out); // d restarted again
  wire::Heartbeat hb;
  a.fill_heartbeat(&hb);
  auto before = hb.versions_size(); // a#1 has no op yet: the 9 of d
  REQUIRE(before == 9);

  SECTION("within the budget they wait prune_superseded_after_ms") {
    a.tick(1000, out);
    CHECK(a.seen().entries().size() == 9);
    CHECK(a.counters().origins_pruned == 0);
  }
  SECTION("past it the settled ones leave until the vector fits") {
    // Room for about four entries of d: the oldest settled ones go.
    cfg.heartbeat_versions_bytes = 4 * 9;
    communication_machine small("a", "a#1", cfg);
    for (int inc = 1; inc <= 9; ++inc)
      small.on_received(
        heard("b", 1, enqueue_op("t" + std::to_string(inc),
                                 "d#" + std::to_string(inc), 1)),
        inc, out);
    small.on_received(heard("b", 1, reporting(all)), 20, out);
    small.on_received(heard("c", 1, reporting(lacking)), 20, out);
    small.on_received(heard("d", 10, heartbeat()), 30, out);
    auto due = small.next_due();
    REQUIRE(due);
    CHECK(*due < 1000); // not prune_superseded_after_ms later
    small.tick(std::max<millis>(*due, 31), out);
    CHECK(small.seen().get("d#1") == 0);
    CHECK(small.seen().get("d#9") == 1); // c still lacks it
    CHECK(small.counters().origins_pruned_early > 0);
    wire::Heartbeat versions;
    small.seen().to_wire(versions.mutable_versions());
    CHECK(versions.ByteSizeLong() <= cfg.heartbeat_versions_bytes);
    CHECK(small.counters().origins_pruned == small.counters().origins_pruned_early);
  }
}

namespace {

// Sync requests `out` sends to `peer`.
std::size_t sync_requests_to(const ev::events& out, const std::string& peer) {
  std::size_t n = 0;
  for (const auto& u : test::emitted<ev::unicast>(out))
    n += u.peer == peer && u.message.has_sync_request() ? 1 : 0;
  return n;
}

} // namespace

TEST_CASE("a peer that stops reporting a superseded origin this replica "
          "never held is not asked for its ops again and again",
          "[communication][restarts][sync]") {
  // Reports of one incarnation are joined, so the origin b pruned stayed in
  // its record here: every heartbeat of b looked like ops lost, and each
  // sync request was answered with a whole snapshot (x#1's ops had left
  // b's log), hundreds of times a minute in a cluster that restarts.
  communication_machine a("a", "a#1", queue_config{});
  ev::events out;
  version_vector old;
  old.observe("x#1", 1);
  old.observe("x#1", 2);
  a.on_received(heard("b", 1, reporting(old)), 0, out);
  a.on_received(heard("x", 2, heartbeat()), 1, out); // x restarted
  out.clear();
  a.on_received(heard("b", 1, reporting({})), 200, out); // b pruned x#1
  auto first = sync_requests_to(out, "b");
  CHECK(first <= 1); // judged on the record before this report
  out.clear();
  for (millis t = 400; t <= 2000; t += 200)
    a.on_received(heard("b", 1, reporting({})), t, out);
  CHECK(sync_requests_to(out, "b") == 0);
}

TEST_CASE("while a snapshot comes in from one peer, another peer ahead is "
          "not asked for a second one, a stalled transfer is given up",
          "[communication][sync][snapshot]") {
  communication_machine a("a", "a#1", queue_config{});
  ev::events out;
  version_vector ahead;
  ahead.observe("b#1", 1);
  a.on_received(heard("b", 1, reporting(ahead)), 0, out);
  a.on_received(heard("c", 1, reporting(ahead)), 0, out);
  // c's snapshot under way: its first chunk says more follow, so a asks c
  // for the next.
  out.clear();
  a.on_received(heard("c", 1, snapshot_chunk("", "t1", true, false, &ahead)),
                10, out);
  CHECK(sync_requests_to(out, "c") == 1);
  out.clear();
  a.on_received(heard("b", 1, reporting(ahead)), 150, out);
  CHECK(sync_requests_to(out, "b") == 0);
  SECTION("a chunk of a transfer given up asks for nothing") {
    a.on_received(heard("b", 1, snapshot_chunk("t5", "t6", false, false, nullptr)),
                  160, out);
    CHECK(sync_requests_to(out, "b") == 0);
  }
  SECTION("c silent for three sync intervals: b is asked") {
    a.on_received(heard("b", 1, reporting(ahead)), 10 + 3 * queue_config{}.sync_interval_ms,
                  out);
    CHECK(sync_requests_to(out, "b") == 1);
  }
}

TEST_CASE("a drained node's heartbeats say so, and a drained peer's seats "
          "reach the claim matching as none",
          "[communication]") {
  communication_machine c("a", "a#1", queue_config{});
  ev::events out;
  auto before = c.heartbeat_changes();
  c.on(ev::drain{true}, 0, out);
  CHECK(c.heartbeat_changes() > before);
  wire::Heartbeat hb;
  c.fill_heartbeat(&hb);
  CHECK(hb.info().draining());
  c.on(ev::drain{false}, 0, out);
  hb.Clear();
  c.fill_heartbeat(&hb);
  CHECK_FALSE(hb.info().draining());

  wire::Heartbeat peer;
  peer.mutable_info()->set_slots(4);
  peer.mutable_info()->set_draining(true);
  out.clear();
  c.on_peer_heartbeat("b", 1, peer, 10, out);
  auto live = test::emitted<ev::live_nodes>(out);
  REQUIRE_FALSE(live.empty());
  CHECK(live.back().peer_seats.at("b").draining);
}

TEST_CASE("heartbeats advertise the claims ahead ranking holds now, so the "
          "peers' claim matching counts them",
          "[communication][prefetch]") {
  queue_config cfg;
  cfg.prefetch = 1;
  cfg.prefetch_auto = true;
  communication_machine c("a", "a#1", cfg);
  wire::Heartbeat hb;
  c.fill_heartbeat(&hb);
  CHECK(hb.info().prefetch() == 1);
  ev::events out;
  auto before = c.heartbeat_changes();
  c.on(ev::prefetch_now{4}, 0, out);
  CHECK(c.heartbeat_changes() > before);
  hb.Clear();
  c.fill_heartbeat(&hb);
  CHECK(hb.info().prefetch() == 4);
}

// -- the coordinator role (machine-level: the op log and who recovers are
// -- inside the machine; an election always runs on dice-node) -----------

namespace {

// Member `self` of a cluster a, b, c, d that follows `coordinator`, has
// received ops 1-5 of c#1 and hears every peer report all of them.
communication_machine member_with_ops(const std::string& self,
                                      const std::string& coordinator,
                                      ev::events& out) {
  communication_machine m(self, self + "#1", queue_config{});
  m.set_coordinator(coordinator, 0, out);
  version_vector all;
  for (std::uint64_t s = 1; s <= 5; ++s)
    all.observe("c#1", s);
  for (const auto* peer : {"a", "b", "c", "d"})
    if (peer != self)
      m.on_received(heard(peer, 1, heartbeat()), 1, out);
  for (std::uint64_t s = 1; s <= 5; ++s)
    m.on_received(heard("c", 1, enqueue_op("t" + std::to_string(s), "c#1", s)),
                  2, out);
  // Twice: floors come from a round of whole reports, one from every peer,
  // that began once this replica had the ops.
  for (millis t : {3, 4})
    for (const auto* peer : {"a", "b", "c", "d"})
      if (peer != self)
        m.on_received(heard(peer, 1, reporting(all)), t, out);
  return m;
}

wire::Message stable_point(const std::string& origin, std::uint64_t seq) {
  wire::Message m;
  auto* e = m.mutable_stable_point()->add_stable();
  e->set_origin(origin);
  e->set_seq(seq);
  return m;
}

wire::Message recovery_of(const std::string& node) {
  wire::Message m;
  m.mutable_recovery()->set_node_id(node);
  return m;
}

} // namespace

TEST_CASE("coordinator: members compact their op log only up to the stable "
          "point it announces, and it announces what every member has seen",
          "[communication][coordinator]") {
  ev::events out;
  auto b = member_with_ops("b", "a", out);
  REQUIRE(b.log().size() == 5);
  // Every peer has seen every op, yet only the coordinator may say so.
  b.tick(5000, out);
  CHECK(b.log().size() == 5);
  b.on_received(heard("a", 1, stable_point("c#1", 3)), 5001, out);
  CHECK(b.log().size() == 2); // up to the stable point, not beyond
  CHECK(b.counters().stable_points_applied == 1);

  out.clear();
  auto a = member_with_ops("a", "a", out);
  out.clear();
  a.tick(5000, out);
  CHECK(a.log().size() == 0);
  CHECK(a.counters().stable_points_sent == 1);
  auto sent = test::emitted<ev::broadcast>(out);
  REQUIRE(sent.size() == 1);
  REQUIRE(sent[0].message.stable_point().stable_size() == 1);
  CHECK(sent[0].message.stable_point().stable(0).origin() == "c#1");
  CHECK(sent[0].message.stable_point().stable(0).seq() == 5);
}

TEST_CASE("coordinator: a stable point from a node that is not the "
          "coordinator is rejected", "[communication][coordinator]") {
  ev::events out;
  auto b = member_with_ops("b", "a", out);
  b.on_received(heard("c", 1, stable_point("c#1", 1000)), 10, out);
  CHECK(b.log().size() == 5);
  CHECK(b.counters().rejected == 1);
  CHECK(b.counters().stable_points_applied == 0);
}

TEST_CASE("coordinator: without an election every node recovers a dead "
          "member itself and announces nothing",
          "[communication][coordinator]") {
  communication_machine b("b", "b#1", queue_config{});
  ev::events out;
  for (const auto* peer : {"a", "c"})
    b.on_received(heard(peer, 1, heartbeat()), 0, out);
  CHECK(b.acts_as_coordinator());
  out.clear();
  b.on_peer_dead("a", 10, out);
  auto recovered = test::emitted<ev::recover_member>(out);
  REQUIRE(recovered.size() == 1);
  CHECK(recovered[0].node == "a");
  CHECK_FALSE(recovered[0].announce);
  CHECK(b.counters().recoveries == 1);
}

TEST_CASE("coordinator: a member that hears the announcement before it "
          "detects the death itself does not recover the member again, "
          "even elected later", "[communication][coordinator]") {
  communication_machine late("c", "c#1", queue_config{});
  ev::events out;
  for (const auto* peer : {"a", "b", "d"})
    late.on_received(heard(peer, 1, heartbeat()), 0, out);
  late.set_coordinator("b", 0, out);
  late.on_received(heard("b", 1, recovery_of("a")), 10, out);
  REQUIRE(late.counters().recoveries_heard == 1);
  out.clear();
  late.on_peer_dead("a", 20, out); // its membership is slower
  CHECK(late.unrecovered().empty());
  late.set_coordinator("c", 30, out);
  CHECK(test::emitted<ev::recover_member>(out).empty());
  CHECK(late.counters().recoveries == 0);
}
