#include <catch2/catch.hpp>

#include <memory>
#include <tuple>
#include <variant>

#include "vocabulary/queue_messages.hpp"
#include "common/emitted_events.hpp"
#include "vocabulary/heir.hpp"
#include "vocabulary/ranking.hpp"
#include "ranking/ranking_machine.hpp"
#include "running_tasks/running_tasks_machine.hpp"

using namespace dice;
using dice::test::emitted;

namespace {

std::vector<ev::free_slots> announced(const ev::events& out) {
  return emitted<ev::free_slots>(out);
}

std::shared_ptr<wire::TaskSpec> spec_of(const std::string& id) {
  auto s = std::make_shared<wire::TaskSpec>();
  s->set_id(id);
  return s;
}

// A matched claim offered at `at`, merged unopposed, started once its
// window (at most 50 ms) ended, and over: an execution no rival beat.
void run_clean(ranking_machine& r, const std::string& id, millis at) {
  ev::events o;
  auto s = spec_of(id);
  r.on(ev::task_offer{id, 1, s, at, true}, at, o);
  auto st = *state_of(emitted<ev::originate>(o).front().op);
  r.on(ev::task_changed{id, s, st}, at + 1, o);
  r.tick(at + 50, o);
  REQUIRE(emitted<ev::start_execution>(o).size() == 1);
  r.on(ev::execution_over{id}, at + 60, o);
}

// Two slots, no prefetch; offers start at once.
queue_config two_slots() {
  queue_config cfg;
  cfg.slots = 2;
  cfg.prefetch = 0;
  cfg.matched_claim_window_ms = 0;
  return cfg;
}

} // namespace

TEST_CASE("ranking tells ready_queue its free slots only when their number "
          "changes, so a quiet node has no tick due",
          "[ranking]") {
  ranking_machine r("a", two_slots());
  ev::events out;
  r.tick(0, out);
  REQUIRE(announced(out).size() == 1);
  CHECK(announced(out).front().count == 2);
  CHECK_FALSE(r.next_due());
  out.clear();
  r.tick(10, out);
  r.on(ev::task_changed{"t", spec_of("t"), ready_state(1)}, 20, out);
  CHECK(announced(out).empty()); // nothing changed
  SECTION("an offer ready_queue counted off needs no new announcement") {
    r.on(ev::task_offer{"t", 1, spec_of("t"), 0, true}, 30, out);
    CHECK(announced(out).empty());
    SECTION("the execution's end frees the slot: announced at once") {
      r.on(ev::execution_over{"t"}, 40, out);
      REQUIRE(announced(out).size() == 1);
      CHECK(announced(out).front().count == 2);
    }
  }
  SECTION("an offer of a task claimed already is refused and the free "
          "slot said again, with the task to skip") {
    r.on(ev::task_offer{"t", 1, spec_of("t"), 0, true}, 30, out);
    r.on(ev::task_offer{"t", 1, spec_of("t"), 0, true}, 30, out);
    CHECK(emitted<ev::start_execution>(out).size() == 1);
    auto a = announced(out);
    REQUIRE(a.size() == 1);
    CHECK(a.front().count == 1);
    CHECK(a.front().claimed == std::vector<std::string>{"t"});
  }
}

TEST_CASE("a claim without a window starts at once, and running_tasks stops "
          "it only when a better claim for its attempt is merged",
          "[ranking][running_tasks]") {
  queue_config cfg;
  cfg.matched_claim_window_ms = 0;
  ranking_machine r("b", cfg);
  ev::events out;
  r.tick(0, out);
  out.clear();
  auto spec = spec_of("t");
  r.on(ev::task_offer{"t", 1, spec, 0, true}, 5, out);
  auto ops = emitted<ev::originate>(out);
  REQUIRE(ops.size() == 1);
  REQUIRE(ops.front().op.has_dequeue());
  auto started = emitted<ev::start_execution>(out);
  REQUIRE(started.size() == 1);
  CHECK(r.pending_claims() == 0);
  CHECK(r.counters().matched_claims == 1);
  // With a window, the same offer waits for rivals first.
  ranking_machine windowed("b", queue_config{});
  ev::events w;
  windowed.on(ev::task_offer{"t", 1, spec, 0, true}, 5, w);
  CHECK(emitted<ev::start_execution>(w).empty());
  CHECK(windowed.pending_claims() == 1);
  REQUIRE(windowed.next_due());
  CHECK(*windowed.next_due() == 5 + queue_config{}.matched_claim_window_ms);
  // The execution reports against the state its claim merges to.
  auto mine = *state_of(ops.front().op);
  CHECK(started.front().state.phase() == wire::RUNNING);
  CHECK(compare_claims(started.front().state.claim(), mine.claim()) == 0);
  // running_tasks holds the execution from here on, and judges it.
  running_tasks_machine x("b", cfg, 1);
  out.clear();
  x.on(started.front(), 5, out);
  REQUIRE(emitted<ev::run_order>(out).size() == 1);
  out.clear();
  // Not merged yet (READY), then a worse rival merged first: keep running.
  x.on(ev::task_changed{"t", spec, ready_state(1)}, 6, out);
  auto worse = mine;
  worse.mutable_claim()->set_node_id("z");
  worse.mutable_claim()->set_dequeue_time_ms(50);
  x.on(ev::task_changed{"t", spec, worse}, 7, out);
  CHECK(emitted<ev::cancel_order>(out).empty());
  SECTION("a better claim: the loser cancels, and ranking gets the seat "
          "back") {
    auto better = mine;
    better.mutable_claim()->set_node_id("a");
    better.mutable_claim()->set_dequeue_time_ms(1);
    x.on(ev::task_changed{"t", spec, better}, 8, out);
    CHECK(emitted<ev::cancel_order>(out).size() == 1);
    auto over = emitted<ev::execution_over>(out);
    REQUIRE(over.size() == 1);
    out.clear();
    r.on(over.front(), 8, out);
    REQUIRE(announced(out).size() == 1);
    CHECK(announced(out).front().count == cfg.slots + cfg.prefetch);
    CHECK(announced(out).front().claimed.empty());
  }
  SECTION("our own claim merged unchanged behind a better one: the loser "
          "cancels") {
    auto better = mine;
    better.mutable_claim()->set_node_id("a");
    better.mutable_claim()->set_dequeue_time_ms(1);
    wire::Dequeue d;
    d.set_task_id("t");
    d.set_attempt(1);
    *d.mutable_claim() = mine.claim();
    x.on(ev::claim_heard{d, better}, 8, out);
    CHECK(emitted<ev::cancel_order>(out).size() == 1);
  }
  SECTION("ours merged: keep running") {
    x.on(ev::task_changed{"t", spec, mine}, 8, out);
    CHECK(emitted<ev::cancel_order>(out).empty());
    CHECK(emitted<ev::originate>(out).empty());
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
    // Nobody to tell: the claim was ours. ready_queue hears of the slot.
    CHECK(emitted<ev::send_to>(out).empty());
    CHECK(emitted<ev::free_slots>(out).size() == 1);
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

TEST_CASE("with a battery source the ranking reads the level again every "
          "battery_refresh_ms, and its claims carry it",
          "[ranking]") {
  queue_config cfg;
  cfg.matched_claim_window_ms = 0;
  cfg.battery = 90;
  cfg.battery_refresh_ms = 1000;
  std::uint32_t level = 80;
  int reads = 0;
  cfg.battery_source = [&] {
    ++reads;
    return std::optional<std::uint32_t>(level);
  };
  ranking_machine r("b", cfg);
  ev::events out;
  r.tick(0, out);
  CHECK(reads == 1);
  REQUIRE(r.next_due());
  CHECK(*r.next_due() == 1000);
  r.tick(500, out);
  CHECK(reads == 1); // not due yet
  auto claim_battery = [&](const std::string& id, millis now) {
    ev::events o;
    r.on(ev::task_offer{id, 1, spec_of(id), 0, true}, now, o);
    auto ops = emitted<ev::originate>(o);
    REQUIRE(ops.size() == 1);
    return state_of(ops.front().op)->claim().battery();
  };
  CHECK(claim_battery("t1", 600) == 80);
  level = 35;
  r.tick(1000, out);
  CHECK(reads == 2);
  r.on(ev::execution_over{"t1"}, 1001, out);
  CHECK(claim_battery("t2", 1002) == 35);
}

TEST_CASE("a claim counts the data objects the node holds beyond its spec's "
          "(dice test: the project blobs in its store)",
          "[ranking]") {
  queue_config cfg;
  cfg.matched_claim_window_ms = 0;
  cfg.objects_held = [](const wire::TaskSpec& t) {
    return static_cast<std::uint32_t>(t.blobs_size()); // holds every blob named
  };
  ranking_machine holder("h", cfg);
  cfg.objects_held = nullptr;
  ranking_machine other("o", cfg);
  auto spec = spec_of("t");
  spec->add_blobs("b1");
  auto* d = spec->add_data_objects();
  d->set_node_id("h");
  d->set_count(2);
  auto claim_of = [&](ranking_machine& r) {
    ev::events out;
    r.tick(0, out);
    r.on(ev::task_offer{"t", 1, spec, 0, true}, 5, out);
    auto ops = emitted<ev::originate>(out);
    REQUIRE(ops.size() == 1);
    return ops.front().op.dequeue().claim();
  };
  auto h = claim_of(holder);
  auto o = claim_of(other);
  CHECK(h.data_objects() == 3); // two listed in the spec, one in its store
  CHECK(o.data_objects() == 0);
  CHECK(better_claim(h, o)); // the first criterion decides
}

TEST_CASE("a drained node announces no free seat, takes no offer, keeps what "
          "it holds, and claims again when undrained",
          "[ranking]") {
  ranking_machine r("a", two_slots());
  ev::events out;
  r.tick(0, out);
  r.on(ev::task_offer{"t", 1, spec_of("t"), 0, true}, 10, out);
  REQUIRE(emitted<ev::start_execution>(out).size() == 1);
  out.clear();
  r.on(ev::drain{true}, 20, out);
  REQUIRE(announced(out).size() == 1);
  CHECK(announced(out).front().count == 0);
  CHECK(announced(out).front().slots == 0);
  CHECK(r.counters().draining == 1);
  CHECK(r.counters().seats_held == 1); // "t" still runs
  out.clear();
  r.on(ev::task_offer{"u", 1, spec_of("u"), 0, true}, 30, out);
  CHECK(emitted<ev::start_execution>(out).empty());
  r.on(ev::execution_over{"t"}, 40, out);
  CHECK(r.counters().seats_held == 0);
  out.clear();
  r.on(ev::drain{false}, 50, out);
  REQUIRE(announced(out).size() == 1);
  CHECK(announced(out).front().count == 2);
  CHECK(r.counters().draining == 0);
  r.on(ev::task_offer{"u", 1, spec_of("u"), 0, true}, 60, out);
  CHECK(emitted<ev::start_execution>(out).size() == 1);
}

TEST_CASE("a task this node has just submitted starts at once: an older one, "
          "another node's, or a schedule's tick waits the matched window",
          "[ranking]") {
  queue_config cfg; // submit claim 3 ms
  REQUIRE(cfg.submit_claim_ms == 3);
  auto own = [](millis enqueued, const std::string& enqueuer) {
    auto s = spec_of("t");
    s->set_enqueuer(enqueuer);
    s->set_enqueue_time_ms(enqueued);
    return s;
  };
  // The claim's date if it started at once.
  auto started_at = [&](std::shared_ptr<wire::TaskSpec> spec, millis ready,
                        millis now, bool matched = true, std::uint32_t attempt = 1,
                        queue_config c = queue_config{}) -> std::optional<millis> {
    ranking_machine r("a", c);
    ev::events out;
    r.tick(0, out); // born long before
    r.on(ev::task_offer{"t", attempt, spec, ready, matched}, now, out);
    auto s = emitted<ev::start_execution>(out);
    if (s.empty())
      return std::nullopt;
    return s.front().claim.dequeue_time_ms();
  };
  auto starts = [&](auto&&... xs) { return started_at(xs...).has_value(); };
  CHECK(started_at(own(100, "a"), 100, 100) == 100);
  // Offered at a later tick: dated at its ENQUEUE, before any rival's.
  CHECK(started_at(own(100, "a"), 100, 101) == 100);
  CHECK(started_at(own(100, "a"), 100, 103) == 100);
  CHECK_FALSE(starts(own(100, "a"), 100, 104)); // not just submitted
  {
    // Never dated before this incarnation began: that reads as a dead
    // incarnation's claim, whose execution died with it.
    ranking_machine r("a", cfg);
    ev::events out;
    r.on(ev::task_offer{"t", 1, own(100, "a"), 100, true}, 102, out);
    auto s = emitted<ev::start_execution>(out);
    REQUIRE(s.size() == 1);
    CHECK(s.front().claim.dequeue_time_ms() == 102);
  }
  CHECK_FALSE(starts(own(100, "b"), 100, 100)); // another node's
  CHECK_FALSE(starts(own(100, "a"), 100, 100, false)); // a staggered claim
  CHECK_FALSE(starts(own(100, "a"), 100, 100, true, 2)); // a retry
  CHECK_FALSE(starts(own(100, "a"), 150, 150)); // delayed to 150
  auto tick = own(100, "a");
  tick->set_scheduled_by("beat"); // another node may enqueue it too
  CHECK_FALSE(starts(tick, 100, 100));
  auto never = cfg;
  never.submit_claim_ms = -1;
  CHECK_FALSE(starts(own(100, "a"), 100, 100, true, 1, never));
}

TEST_CASE("a child whose last parent just ended on this node starts at "
          "once: its heir elsewhere, or a late offer, waits the window",
          "[ranking]") {
  // Parents p1 (ended at 90 on `first`) and p2 (ended at 100 on `last`).
  auto child = [](const std::string& first, const std::string& last) {
    auto s = spec_of("c");
    s->set_enqueuer("b");
    s->set_enqueue_time_ms(10);
    s->add_after("p1");
    s->add_after("p2");
    for (auto [id, node, at] : {std::tuple<const char*, std::string, millis>{"p1", first, 90},
                                {"p2", last, 100}}) {
      auto* in = s->add_inputs();
      in->set_task_id(id);
      in->set_phase(wire::DONE);
      in->set_node(node);
      in->set_finished_ms(at);
    }
    return s;
  };
  // The claim's date if it started at once, else -1.
  auto started_at = [](std::shared_ptr<wire::TaskSpec> spec, millis now) -> millis {
    ranking_machine r("a", queue_config{});
    ev::events out;
    r.tick(0, out); // born long before
    r.on(ev::task_offer{"c", 1, spec, 10, true}, now, out);
    auto s = emitted<ev::start_execution>(out);
    return s.empty() ? -1 : s.front().claim.dequeue_time_ms();
  };
  auto starts = [&](std::shared_ptr<wire::TaskSpec> spec, millis now) {
    return started_at(std::move(spec), now) >= 0;
  };
  const auto bound = queue_config{}.submit_claim_ms + heir_claim_extra_ms;
  CHECK(started_at(child("b", "a"), 101) == 100); // dated at the end
  CHECK(started_at(child("b", "a"), 100 + bound) == 100);
  CHECK_FALSE(starts(child("b", "a"), 100 + bound + 1));
  CHECK_FALSE(starts(child("a", "b"), 101)); // its heir is b
  CHECK(heir_of(*child("a", "b")).first == "b");
}

TEST_CASE("a better rival claim heard only after the execution began "
          "lengthens the matched window: clean executions shorten it again",
          "[ranking]") {
  queue_config cfg;
  cfg.matched_claim_window_ms = 5; // the stagger's window: 100 ms
  ranking_machine r("b", cfg);
  ev::events out;
  r.tick(0, out);
  auto spec = spec_of("t1");
  // Matched, claimed at 1000, started when the window ended at 1005.
  r.on(ev::task_offer{"t1", 1, spec, 1000, true}, 1000, out);
  auto mine = *state_of(emitted<ev::originate>(out).front().op);
  r.on(ev::task_changed{"t1", spec, mine}, 1001, out);
  r.tick(1005, out);
  REQUIRE(emitted<ev::start_execution>(out).size() == 1);
  CHECK(r.counters().matched_window_ms == 5);
  // A better claim (dated 999) arrives 9 ms after ours: a 10 ms window
  // would have let ours lose before it started.
  auto better = mine;
  better.mutable_claim()->set_node_id("a");
  better.mutable_claim()->set_dequeue_time_ms(999);
  r.on(ev::task_changed{"t1", spec, better}, 1009, out);
  CHECK(r.counters().matched_window_ms == 10);
  r.on(ev::execution_over{"t1"}, 1010, out);
  // The next matched claim waits the learnt window.
  out.clear();
  auto spec2 = spec_of("t2");
  r.on(ev::task_offer{"t2", 1, spec2, 2000, true}, 2000, out);
  REQUIRE(r.next_due());
  CHECK(*r.next_due() == 2010);
  SECTION("one straggler at most doubles it, and never past the stagger's "
          "window") {
    auto mine2 = *state_of(emitted<ev::originate>(out).front().op);
    r.on(ev::task_changed{"t2", spec2, mine2}, 2001, out);
    r.tick(2010, out);
    auto late = mine2;
    late.mutable_claim()->set_node_id("a");
    late.mutable_claim()->set_dequeue_time_ms(1990);
    r.on(ev::task_changed{"t2", spec2, late}, 2500, out);
    CHECK(r.counters().matched_window_ms == 20);
  }
  SECTION("it holds for 512 executions no rival beat, then every eight "
          "more take a millisecond off") {
    r.on(ev::task_changed{"t2", spec2, *state_of(emitted<ev::originate>(out).front().op)}, 2001, out);
    r.tick(2010, out);
    r.on(ev::execution_over{"t2"}, 2020, out);
    for (int i = 0; i < 511; ++i)
      run_clean(r, "c" + std::to_string(i), 3000 + 100 * i);
    CHECK(r.counters().matched_window_ms == 10);
    for (int i = 511; i < 518; ++i)
      run_clean(r, "c" + std::to_string(i), 3000 + 100 * i);
    CHECK(r.counters().matched_window_ms == 9);
  }
}

TEST_CASE("on a network where no rival comes late the matched window "
          "shrinks to 1 ms", "[ranking]") {
  queue_config cfg; // starts at matched_claim_window_ms (10)
  ranking_machine r("b", cfg);
  ev::events out;
  r.tick(0, out);
  for (int i = 0; i < 200; ++i)
    run_clean(r, "c" + std::to_string(i), 1000 + 100 * i);
  CHECK(r.counters().matched_window_ms == 1);
}

TEST_CASE("under --prefetch auto, short executions give a node more claims "
          "ahead: ranking says so to the heartbeats and offers the seats",
          "[ranking][prefetch]") {
  auto cfg = two_slots();
  cfg.prefetch = 1;
  cfg.prefetch_auto = true;
  ranking_machine r("a", cfg);
  ev::events out;
  r.tick(0, out);
  REQUIRE(announced(out).size() == 1);
  CHECK(announced(out).front().count == 3); // 2 slots + 1 ahead
  CHECK(r.counters().prefetch == 1);
  out.clear();
  r.on(ev::task_offer{"t", 1, spec_of("t"), 0, true}, 10, out);
  REQUIRE(emitted<ev::start_execution>(out).size() == 1);
  out.clear();
  SECTION("a no-op execution: four ahead") {
    r.on(ev::execution_over{"t", 0}, 11, out);
    auto now = emitted<ev::prefetch_now>(out);
    REQUIRE(now.size() == 1);
    CHECK(now.front().count == 4);
    CHECK(r.counters().prefetch == 4);
    REQUIRE(announced(out).size() == 1);
    CHECK(announced(out).front().count == 6);
  }
  SECTION("a stopped execution measures nothing") {
    r.on(ev::execution_over{"t"}, 11, out);
    CHECK(emitted<ev::prefetch_now>(out).empty());
    CHECK(announced(out).front().count == 3);
  }
  SECTION("a long execution keeps one ahead and says nothing") {
    r.on(ev::execution_over{"t", 400}, 411, out);
    CHECK(emitted<ev::prefetch_now>(out).empty());
    CHECK(r.counters().prefetch == 1);
  }
}

TEST_CASE("a fixed --prefetch never changes with execution times",
          "[ranking][prefetch]") {
  auto cfg = two_slots();
  cfg.prefetch = 2;
  ranking_machine r("a", cfg);
  ev::events out;
  r.tick(0, out);
  r.on(ev::task_offer{"t", 1, spec_of("t"), 0, true}, 10, out);
  out.clear();
  r.on(ev::execution_over{"t", 0}, 11, out);
  CHECK(emitted<ev::prefetch_now>(out).empty());
  CHECK(r.counters().prefetch == 2);
  CHECK(announced(out).front().count == 4);
}
