#include <catch2/catch.hpp>

#include <memory>
#include <variant>

#include "communication/communication.hpp"
#include "common/emitted_events.hpp"
#include "ranking/ranking_machine.hpp"

using namespace dice;
using dice::test::emitted;

namespace {

std::size_t wants(const ev::events& out) {
  return emitted<ev::want_tasks>(out).size();
}

} // namespace

TEST_CASE("an idle node asks for tasks only after a change or when "
          "ready_queue says, so a quiet node has no tick due",
          "[ranking]") {
  ranking_machine r("a", queue_config{});
  ev::events out;
  r.tick(0, out);
  CHECK(wants(out) == 1); // a free slot asks at once
  out.clear();
  r.tick(10, out);
  CHECK(wants(out) == 0); // asked already
  SECTION("nothing ready: no tick due until a task changes") {
    r.on(ev::offer_later{}, 10, out);
    CHECK_FALSE(r.next_due());
    r.tick(500, out);
    CHECK(wants(out) == 0);
    auto spec = std::make_shared<wire::TaskSpec>();
    spec->set_id("t");
    r.on(ev::task_changed{"t", spec, ready_state(1)}, 600, out);
    REQUIRE(r.next_due());
    CHECK(*r.next_due() == 600);
    r.tick(610, out);
    CHECK(wants(out) == 1);
  }
  SECTION("a claim whose turn comes later: asked again at that time") {
    r.on(ev::offer_later{millis{120}}, 10, out);
    REQUIRE(r.next_due());
    CHECK(*r.next_due() == 120);
    r.tick(100, out);
    CHECK(wants(out) == 0);
    r.tick(120, out);
    CHECK(wants(out) == 1);
  }
}

TEST_CASE("a claim in its window keeps a tick due at the window's end",
          "[ranking]") {
  queue_config cfg;
  ranking_machine r("a", cfg);
  ev::events out;
  r.tick(0, out);
  auto spec = std::make_shared<wire::TaskSpec>();
  spec->set_id("t");
  r.on(ev::task_offer{"t", 1, spec, 0}, 5, out);
  REQUIRE(r.pending_claims() == 1);
  REQUIRE(r.next_due());
  CHECK(*r.next_due() == 5 + cfg.claim_window_ms);
}

namespace {

// A node "a" that claimed task "t" (attempt 1) at time 5; returns its
// DEQUEUE.
wire::Message claim_t(ranking_machine& r,
                      std::shared_ptr<wire::TaskSpec> spec) {
  ev::events out;
  r.tick(0, out);
  out.clear();
  r.on(ev::task_offer{"t", 1, spec, 0}, 5, out);
  auto ops = emitted<ev::originate>(out);
  REQUIRE(ops.size() == 1);
  REQUIRE(ops.front().op.has_dequeue());
  return ops.front().op;
}

// `mine` as node `node` would have claimed it at `dequeue_time`: earlier
// claims win.
wire::TaskState rival(wire::TaskState mine, const std::string& node,
                      millis dequeue_time) {
  mine.mutable_claim()->set_node_id(node);
  mine.mutable_claim()->set_dequeue_time_ms(dequeue_time);
  return mine;
}

// Node "a" with a claim on "t" made at time 5: its DEQUEUE, and the state
// that DEQUEUE yields once merged.
struct claimed {
  queue_config cfg;
  ranking_machine r{"a", cfg};
  std::shared_ptr<wire::TaskSpec> spec = [] {
    auto s = std::make_shared<wire::TaskSpec>();
    s->set_id("t");
    return s;
  }();
  wire::Message dequeue = claim_t(r, spec);
  wire::TaskState mine = *state_of(dequeue);
};

} // namespace

TEST_CASE("a claim whose own DEQUEUE is merged only after the window ends "
          "executes then, instead of giving up and re-queueing the task",
          "[ranking]") {
  claimed c;
  auto& [cfg, r, spec, dequeue, mine] = c;
  ev::events out;
  SECTION("merged late: executes at once, no re-queue") {
    r.tick(5 + cfg.claim_window_ms, out);
    CHECK(emitted<ev::start_execution>(out).empty());
    CHECK(r.pending_claims() == 1); // still waiting for its own claim
    CHECK(r.counters().claims_lost == 0);
    out.clear();
    r.on(ev::task_changed{"t", spec, mine}, 180, out);
    REQUIRE(r.next_due());
    CHECK(*r.next_due() == 180);
    r.tick(180, out);
    auto started = emitted<ev::start_execution>(out);
    REQUIRE(started.size() == 1);
    CHECK(started.front().task_id == "t");
    CHECK(emitted<ev::originate>(out).empty()); // nothing re-queued
    CHECK(r.counters().requeues == 0);
  }
  SECTION("a worse claim merged before ours does not free the slot") {
    auto worse = rival(mine, "z", 50);
    r.on(ev::task_changed{"t", spec, worse}, 20, out);
    CHECK(r.pending_claims() == 1);
    r.on(ev::task_changed{"t", spec, mine}, 30, out);
    r.tick(5 + cfg.claim_window_ms, out);
    CHECK(emitted<ev::start_execution>(out).size() == 1);
    CHECK(r.counters().claims_lost == 0);
  }
  SECTION("a better claim frees the slot at once") {
    auto better = rival(mine, "0", 1);
    r.on(ev::task_changed{"t", spec, better}, 20, out);
    CHECK(r.pending_claims() == 0);
    CHECK(r.counters().claims_lost == 1);
  }
  SECTION("ours changed nothing, a better one was merged first: the slot "
          "is freed at once") {
    auto better = rival(mine, "0", 1);
    r.on(ev::claim_heard{dequeue.dequeue(), better}, 20, out);
    CHECK(r.pending_claims() == 0);
    CHECK(r.counters().claims_lost == 1);
    CHECK(out.empty()); // nobody to tell: the claim was ours
  }
  SECTION("never merged: given up after the running timeout") {
    r.tick(5 + cfg.claim_window_ms, out);
    REQUIRE(r.next_due());
    CHECK(*r.next_due() == 5 + cfg.running_timeout_ms);
    r.tick(5 + cfg.running_timeout_ms, out);
    CHECK(r.pending_claims() == 0);
    CHECK(r.counters().claims_lost == 1);
    CHECK(emitted<ev::start_execution>(out).empty());
  }
}

TEST_CASE("a RUNNING change of our own claim that arrives after our "
          "execution ended does not re-queue the task",
          "[ranking]") {
  claimed c;
  auto& [cfg, r, spec, dequeue, mine] = c;
  ev::events out;
  r.on(ev::task_changed{"t", spec, mine}, 10, out);
  r.tick(5 + cfg.claim_window_ms, out);
  REQUIRE(emitted<ev::start_execution>(out).size() == 1);
  r.on(ev::execution_over{"t"}, 400, out);
  out.clear();
  auto later = mine;
  later.set_started_time_ms(120); // a heartbeat's change of the same claim
  r.on(ev::task_changed{"t", spec, later}, 401, out);
  CHECK(emitted<ev::originate>(out).empty());
  CHECK(r.counters().requeues == 0);
  SECTION("a claim of ours that nobody runs is still re-queued") {
    ranking_machine fresh("a", cfg); // a new incarnation of node a
    ev::events out2;
    fresh.on(ev::task_changed{"t", spec, later}, 500, out2);
    CHECK(emitted<ev::originate>(out2).size() == 1);
    CHECK(fresh.counters().requeues == 1);
  }
}
