#include <catch2/catch.hpp>

#include "vocabulary/queue_messages.hpp"
#include "simulation/lockstep.hpp"

using namespace dice;
using namespace dice::test;
using M = wire::Message;

namespace {

lockstep three_nodes(queue_config cfg = {}) {
  lockstep net;
  net.add("a", cfg);
  net.add("b", cfg);
  net.add("c", cfg);
  return net;
}

} // namespace

TEST_CASE("submitted tasks run once each and end DONE on every replica",
          "[queue]") {
  auto net = three_nodes();
  for (int i = 0; i < 6; ++i)
    REQUIRE(net.at("a").submit(spec_of("t" + std::to_string(i)), net.now));
  net.flush();
  net.run_for(5000);
  for (auto& n : net.nodes) {
    CAPTURE(n->id());
    REQUIRE(n->replica().size() == 6);
    REQUIRE(n->replica().counts().by_phase[wire::DONE] == 6);
    REQUIRE(n->replica().same_as(net.nodes[0]->replica()));
  }
  for (int i = 0; i < 6; ++i)
    CHECK(net.starts_of("t" + std::to_string(i)) == 1);
  // Each node walks the tasks in its own order: the work spreads out.
  std::set<std::string> workers;
  for (auto& e : net.started)
    workers.insert(e.node);
  CHECK(workers.size() >= 2);
  const auto* t = net.at("b").replica().find("t0");
  CHECK(t->state.result() == "result of t0");
  CHECK(t->spec.enqueuer() == "a");
}

TEST_CASE("two claims in one window: exactly one node executes", "[queue]") {
  auto net = three_nodes();
  net.at("b").submit(spec_of("t"), net.now);
  net.flush();
  // Every node ticks before any DEQUEUE is delivered: three claims for the
  // same (task, attempt) cross in flight.
  net.step();
  std::size_t claims = 0;
  for (auto& n : net.nodes)
    claims += n->counters().claims;
  REQUIRE(claims == 3);
  net.run_for(2000);
  CHECK(net.starts_of("t") == 1);
  CHECK(net.canceled.empty());
  // Same battery, class and dequeue time: the enqueuer's claim wins, on
  // every replica alike.
  REQUIRE(net.started.size() == 1);
  CHECK(net.started[0].node == "b");
  for (auto& n : net.nodes) {
    CHECK(n->replica().counts().by_phase[wire::DONE] == 1);
    CHECK(n->replica().find("t")->state.claim().node_id() == "b");
  }
}

TEST_CASE("a late claim on a running task: the ranking decides, the loser "
          "cancels",
          "[queue]") {
  queue_config weak;
  weak.battery = 20;
  queue_config strong;
  strong.battery = 90;
  lockstep net;
  net.task_ms = 2000;

  SECTION("a better late claim takes over; the running loser cancels") {
    net.add("a", weak);
    net.add("b", strong);
  }
  SECTION("a worse late claim loses and never executes") {
    net.add("a", strong);
    net.add("b", weak);
  }
  net.at("a").submit(spec_of("t"), net.now);
  net.flush();
  net.down = {"b"}; // b hears nothing of a's claim nor of its heartbeats
  net.run_for(500);
  REQUIRE(net.starts_of("t") == 1);
  REQUIRE(net.started[0].node == "a");
  net.down.clear();
  net.step(); // b still sees t READY and claims it, late
  REQUIRE(net.at("b").counters().claims == 1);
  net.run_for(5000);

  bool b_better = net.at("b").config().battery > net.at("a").config().battery;
  auto winner = b_better ? "b" : "a";
  for (auto& n : net.nodes) {
    const auto* t = n->replica().find("t");
    CHECK(t->state.phase() == wire::DONE);
    CHECK(t->state.claim().node_id() == winner);
  }
  if (b_better) {
    CHECK(net.starts_of("t") == 2);
    REQUIRE(net.canceled.size() == 1);
    CHECK(net.canceled[0].node == "a");
  } else {
    CHECK(net.starts_of("t") == 1);
    CHECK(net.canceled.empty());
  }
}

TEST_CASE("a DONE task tells every replica when it became ready and when "
          "its execution started",
          "[queue]") {
  auto net = three_nodes();
  auto submitted = net.now;
  REQUIRE(net.at("a").submit(spec_of("t"), net.now));
  net.flush();
  net.run_for(3000);
  REQUIRE(net.started.size() == 1);
  for (auto& n : net.nodes) {
    CAPTURE(n->id());
    const auto& s = n->replica().find("t")->state;
    REQUIRE(s.phase() == wire::DONE);
    CHECK(s.ready_time_ms() == submitted);
    // The execution starts once its (matched) claim window has passed...
    CHECK(s.started_time_ms()
          >= submitted + n->config().matched_claim_window_ms);
    // ...and ran for the task's duration.
    CHECK(s.finished_time_ms() - s.started_time_ms() == net.task_ms);
  }
  CHECK(net.at("b").replica().same_as(net.at("a").replica()));
}

TEST_CASE("interleaved, events wait in the subsystems' mailboxes from one "
          "input to the next, and drain() handles them all",
          "[queue][interleave]") {
  // A lone node acknowledges a submit itself: in FIFO order before
  // submit() returns.
  queue_node fifo("a", 1, 1);
  REQUIRE(fifo.submit(spec_of("t"), 0));
  CHECK(fifo.take_outbox().acknowledged == std::vector<std::string>{"t"});
  CHECK(fifo.pending() == 0);

  // Interleaved, some seeds leave the acknowledgment on its way when
  // submit() returns; the following inputs (ticks) carry it on.
  int waited = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    CAPTURE(seed);
    queue_node n("a", 1, seed);
    n.interleave(seed);
    REQUIRE(n.submit(spec_of("t"), 0));
    if (!n.take_outbox().acknowledged.empty())
      continue;
    REQUIRE(n.pending() > 0);
    ++waited;
    std::vector<std::string> acknowledged;
    for (millis now = 1; now <= 200 && acknowledged.empty(); ++now) {
      n.tick(now);
      acknowledged = n.take_outbox().acknowledged;
    }
    CHECK(acknowledged == std::vector<std::string>{"t"});
    n.drain();
    CHECK(n.pending() == 0);
  }
  CHECK(waited >= 3);
}

TEST_CASE("interleaved, a submit answers with its ENQUEUE's op id though "
          "earlier submits' events still wait",
          "[queue][interleave]") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    queue_node n("a", 1, seed);
    n.interleave(seed);
    std::map<std::string, std::uint64_t> answered;
    std::size_t most = 0;
    for (int i = 0; i < 20; ++i) {
      auto id = "t" + std::to_string(i);
      auto op = n.submit(spec_of(id), i);
      REQUIRE(op);
      CHECK(op->origin() == n.origin());
      answered[id] = op->seq();
      most = std::max(most, n.pending());
    }
    CHECK(most > 0);
    n.drain();
    CHECK(n.pending() == 0);
    auto ops = n.log().missing({}, n.seen(), 100);
    REQUIRE(ops);
    std::map<std::string, std::uint64_t> logged;
    for (const auto& m : *ops)
      if (m.has_enqueue())
        logged[task_id_of(m)] = op_of(m)->seq();
    CHECK(logged == answered);
  }
}
