#include <catch2/catch.hpp>

#include <set>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/wire_budget.hpp"
#include "common/emitted_events.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "simulation/lockstep.hpp"

using namespace dice;
using namespace dice::test;

// Every datagram a node sends stays within --bundle-bytes (one Ethernet
// frame by default): sync replies, snapshot chunks and Recovery
// announcements are cut to the node's wire budget, and sealed through the
// real envelope (header and HMAC tag) each one fits.

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

std::vector<wire::Message> sync_replies(const lockstep& net) {
  std::vector<wire::Message> out;
  for (const auto& [from, m] : net.sent)
    if (m.has_sync_reply())
      out.push_back(m);
  return out;
}

// "b" comes back after "a" took `tasks` tasks of `payload` bytes each, and
// they exchange versions for 2 s; executions never end, so states stay put.
void catch_up(lockstep& net, const queue_config& cfg, int tasks,
              std::size_t payload, char fill) {
  net.task_ms = 100'000'000;
  net.add("a", cfg);
  net.add("b", cfg);
  net.down = {"b"};
  for (int i = 0; i < tasks; ++i) {
    auto s = spec_of("t" + std::to_string(100000 + i));
    s.set_payload(std::string(payload, fill));
    REQUIRE(net.at("a").submit(s, net.now));
  }
  net.flush();
  net.sent.clear();
  net.down.clear();
  net.versions_every_ms = 200;
  net.run_for(2'000, 5);
}

} // namespace

TEST_CASE("a snapshot is sent in chunks that each fit in one frame and "
          "together hold the whole replica",
          "[queue][wire]") {
  auto cfg = budgeted();
  cfg.op_log_limit = 16; // the newcomer's ops are long gone
  lockstep net;
  constexpr int tasks = 2000;
  catch_up(net, cfg, tasks, 150, 'x');

  auto& a = net.at("a");
  auto& b = net.at("b");
  REQUIRE(b.replica().size() == tasks);
  CHECK(b.replica().same_as(a.replica()));
  CHECK_FALSE(b.seen().behind(a.seen()));
  CHECK(b.counters().snapshots_applied >= 1);
  auto replies = sync_replies(net);
  CHECK(replies.size() > 100); // ~300 KB of tasks
  CHECK(largest_sealed(replies) <= defaults::bundle_bytes);
  // Several chunks answer one request: a 2,000-task replica takes a few
  // round trips, not one per chunk.
  CHECK(a.counters().snapshots_sent < replies.size() / 8);
}

TEST_CASE("a snapshot's first chunk fits in one frame while the sender "
          "waits on a long gap of ops", "[queue][wire]") {
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

TEST_CASE("missed ops are resent in replies that each fit in one frame",
          "[queue][wire]") {
  auto cfg = budgeted();
  lockstep net;
  constexpr int tasks = 600;
  catch_up(net, cfg, tasks, 100, 'y');

  auto& b = net.at("b");
  REQUIRE(b.replica().size() == tasks);
  CHECK(b.replica().same_as(net.at("a").replica()));
  CHECK(b.counters().snapshots_applied == 0); // the op log still held them
  auto replies = sync_replies(net);
  CHECK(replies.size() > 20);
  CHECK(largest_sealed(replies) <= defaults::bundle_bytes);
}

TEST_CASE("a Recovery announcement of a thousand adopted tasks is split into "
          "messages that each fit in one frame",
          "[queue][wire]") {
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
