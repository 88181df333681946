#include <catch2/catch.hpp>

#include <set>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/wire_budget.hpp"
#include "common/emitted_events.hpp"
#include "common/defaults.hpp"
#include "communication/communication_machine.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "vocabulary/queue_messages.hpp"

using namespace dice;

// Every datagram a node sends stays within --bundle-bytes (one Ethernet
// frame by default): sync replies, snapshot chunks and Recovery
// announcements are cut to the node's wire budget, and sealed through the
// real envelope (header and HMAC tag) each one fits. The machines that
// cut them are driven directly: known_tasks answers a snapshot request,
// communication a request for missed ops.

namespace {

const bridge_identity sealer{"dice", "node-with-a-long-name-0001",
                             "127.0.0.1:47400", 3};

queue_config budgeted(queue_config cfg = {}) {
  cfg.wire_budget = body_budget(sealer, bridge_limits{});
  return cfg;
}

// The largest datagram among `messages`, each sealed as the node seals it.
std::size_t largest_sealed(const std::vector<wire::Message>& messages) {
  bridge_state bridge(sealer, "a cluster key");
  std::size_t largest = 0;
  for (const auto& m : messages) {
    auto bytes = bridge.seal(m, 1'700'000'000'000);
    REQUIRE(bytes);
    largest = std::max(largest, bytes->size());
  }
  return largest;
}

wire::TaskSpec spec_of(int i, std::size_t payload, char fill) {
  wire::TaskSpec s;
  s.set_id("t" + std::to_string(100000 + i));
  s.set_kind("echo");
  s.set_payload(std::string(payload, fill));
  return s;
}

} // namespace

TEST_CASE("a snapshot is sent in chunks that each fit in one frame and "
          "together hold the whole replica",
          "[communication][wire]") {
  auto cfg = budgeted();
  known_tasks_machine a("a", "a#1", cfg);
  ev::events out;
  constexpr int tasks = 2000;
  for (int i = 0; i < tasks; ++i) {
    wire::TaskState st;
    st.set_phase(wire::READY);
    a.on(ev::merge_task{spec_of(i, 150, 'x'), false, st}, 0, out);
  }
  // The newcomer asks again after the last chunk of each answer, from the
  // last task it holds, until a chunk says the snapshot is complete.
  std::vector<wire::Message> chunks;
  std::set<std::string> held;
  std::string after;
  std::size_t requests = 0;
  for (bool more = true; more && requests < 1000;) {
    ++requests;
    out.clear();
    a.on(ev::snapshot_wanted{"b", after, version_vector{}}, 0, out);
    auto answer = test::emitted<ev::send_to>(out);
    REQUIRE(!answer.empty());
    for (const auto& s : answer) {
      const auto& r = s.message.sync_reply();
      for (const auto& t : r.snapshot()) {
        held.insert(t.spec().id());
        after = std::max(after, t.spec().id());
        CHECK(t.spec().payload() == std::string(150, 'x'));
      }
      more = r.snapshot_more();
      chunks.push_back(s.message);
    }
  }
  CHECK(held.size() == tasks); // ~300 KB of tasks
  CHECK(chunks.size() > 100);
  CHECK(largest_sealed(chunks) <= defaults::bundle_bytes);
  // Several chunks answer one request: a 2,000-task replica takes a few
  // round trips, not one per chunk.
  CHECK(requests < chunks.size() / 8);
}

TEST_CASE("a snapshot's first chunk fits in one frame while the sender "
          "waits on a long gap of ops", "[communication][wire]") {
  auto cfg = budgeted();
  known_tasks_machine k("a", "a#1", cfg);
  ev::events out;
  for (int i = 0; i < 50; ++i) {
    wire::TaskSpec s;
    s.set_id("task-" + std::to_string(i));
    s.set_payload(std::string(200, 'p'));
    wire::TaskState st;
    st.set_phase(wire::DONE);
    st.set_result(std::string(200, 'r'));
    k.on(ev::merge_task{s, false, st}, 0, out);
  }
  // Ops 369-400 of one origin went missing; 401-2400 came in.
  version_vector seen;
  for (std::uint64_t s = 1; s <= 2400; ++s)
    if (s <= 368 || s > 400)
      seen.observe("node-with-a-long-name-0002#1700000000000", s);
  out.clear();
  k.on(ev::snapshot_wanted{"b", "", seen}, 0, out);
  std::vector<wire::Message> chunks;
  for (const auto& s : test::emitted<ev::send_to>(out))
    chunks.push_back(s.message);
  REQUIRE(chunks.size() > 1);
  CHECK(chunks.front().sync_reply().snapshot_versions_size() == 1);
  CHECK(largest_sealed(chunks) <= defaults::bundle_bytes);
}


namespace {

// A heartbeat of b: a becomes its peer.
wire::Message heard_from(const std::string& peer) {
  wire::Message m;
  m.mutable_heartbeat();
  m.set_sender_id(peer);
  m.set_sender_addr(peer + ":7000");
  m.set_incarnation(1);
  return m;
}

} // namespace

TEST_CASE("missed ops are resent in replies that each fit in one frame",
          "[communication][wire]") {
  auto cfg = budgeted();
  communication_machine a("a", "a#1", cfg);
  ev::events out;
  a.on_received(heard_from("b"), 0, out);
  constexpr int tasks = 600;
  for (int i = 0; i < tasks; ++i)
    a.on(ev::originate{make_enqueue(spec_of(i, 100, 'y'), {})}, 1, out);
  // b lacks every op: it asks, and asks again for what is still missing
  // once the replies to one request are in.
  version_vector have;
  std::vector<wire::Message> replies;
  std::size_t requests = 0;
  for (; have.get("a#1") < tasks && requests < 100; ++requests) {
    wire::Message req;
    have.to_wire(req.mutable_sync_request()->mutable_have());
    req.set_sender_id("b");
    req.set_sender_addr("b:7000");
    req.set_incarnation(1);
    out.clear();
    a.on_received(req, 2, out);
    // The op log still holds them: no snapshot.
    CHECK(test::emitted<ev::snapshot_wanted>(out).empty());
    auto sent = test::emitted<ev::unicast>(out);
    REQUIRE(!sent.empty());
    for (const auto& u : sent) {
      CHECK(u.peer == "b");
      REQUIRE(u.message.has_sync_reply());
      for (const auto& op : u.message.sync_reply().ops())
        have.observe("a#1", op_of(op)->seq());
      replies.push_back(u.message);
    }
  }
  CHECK(have.get("a#1") == tasks);
  CHECK(replies.size() > 20);
  CHECK(largest_sealed(replies) <= defaults::bundle_bytes);
}

TEST_CASE("a Recovery announcement of a thousand adopted tasks is split into "
          "messages that each fit in one frame",
          "[communication][wire]") {
  auto cfg = budgeted();
  known_tasks_machine k("c", "c#1", cfg);
  ev::events out;
  std::set<std::string> unfinished;
  for (int i = 0; i < 1200; ++i) {
    wire::TaskSpec s;
    s.set_id("task-of-the-dead-node-" + std::to_string(i));
    s.set_enqueuer("d");
    wire::TaskState st;
    st.set_phase(wire::READY);
    k.on(ev::merge_task{s, false, st}, 0, out);
    unfinished.insert(s.id());
  }
  std::vector<std::string> requeued;
  for (int i = 0; i < 300; ++i)
    requeued.push_back("requeued-" + std::to_string(i));
  out.clear();
  k.on(ev::member_recovered{"d", requeued, true}, 0, out);

  std::vector<wire::Message> sent;
  std::set<std::string> adopted, again;
  for (const auto& b : test::emitted<ev::broadcast>(out)) {
    REQUIRE(b.message.has_recovery());
    CHECK(b.message.recovery().node_id() == "d");
    adopted.insert(b.message.recovery().adopted().begin(),
                   b.message.recovery().adopted().end());
    again.insert(b.message.recovery().requeued().begin(),
                 b.message.recovery().requeued().end());
    sent.push_back(b.message);
  }
  CHECK(sent.size() > 10);
  CHECK(largest_sealed(sent) <= defaults::bundle_bytes);
  CHECK(again == std::set<std::string>(requeued.begin(), requeued.end()));
  CHECK(adopted.size() == cfg.recovery_adopt_limit);
  for (const auto& id : adopted)
    CHECK(unfinished.count(id) == 1);
}
