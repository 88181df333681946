#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <set>

#include "common/emitted_events.hpp"
#include "ready_queue/claim_matching.hpp"
#include "ready_queue/ready_queue_machine.hpp"

using namespace dice;

namespace {

ev::task_changed ready(const std::string& id, const std::string& kind) {
  auto spec = std::make_shared<wire::TaskSpec>();
  spec->set_id(id);
  spec->set_kind(kind);
  spec->set_enqueuer("b");
  wire::TaskState s;
  s.set_phase(wire::READY);
  s.set_attempt(1);
  return {id, spec, s};
}

std::set<std::string> offered(const ev::events& out) {
  std::set<std::string> ids;
  for (const auto& o : test::emitted<ev::task_offer>(out))
    ids.insert(o.task_id);
  return ids;
}

} // namespace

TEST_CASE("a node offers its free seats only tasks it can run, the others "
          "wait for a node that can",
          "[ready_queue]") {
  queue_config cfg;
  cfg.runner = runner_capabilities{{"echo", "sleep"}, {}}; // no shell
  ready_queue_machine m("a", cfg);
  ev::events out;
  m.on(ready("t-shell-1", "shell"), 0, out);
  m.on(ready("t-echo", "echo"), 0, out);
  m.on(ready("t-shell-2", "shell"), 0, out);
  SECTION("alone: no stagger") {
    m.on(ev::free_slots{3, 3, 0, {}}, 0, out);
    m.tick(0, out);
    CHECK(offered(out) == std::set<std::string>{"t-echo"});
  }
  SECTION("with a peer that has free seats: the common matching may give "
          "this node a shell task, which it leaves") {
    ev::live_nodes live;
    live.count = 2;
    live.peer_seats["b"] = ev::seats{1, 0};
    m.on(live, 0, out);
    m.on(ev::free_slots{3, 3, 0, {}}, 0, out);
    for (millis t = 0; t <= 10 * cfg.claim_stagger_ms; t += 10)
      m.tick(t, out);
    CHECK(offered(out) == std::set<std::string>{"t-echo"});
  }
}

TEST_CASE("a kind a worker begins to serve is offered from then on, and no "
          "longer once the last worker of it left",
          "[ready_queue]") {
  queue_config cfg;
  cfg.runner = runner_capabilities{{"echo"}, {}};
  ready_queue_machine m("a", cfg);
  ev::events out;
  m.on(ready("t-resize", "resize"), 0, out);
  m.on(ev::free_slots{1, 1, 0, {}}, 0, out);
  m.tick(0, out);
  CHECK(offered(out).empty());
  m.on(ev::runner_changed{runner_capabilities{{"echo", "resize"}, {}}}, 10, out);
  m.tick(10, out);
  CHECK(offered(out) == std::set<std::string>{"t-resize"});
  out.clear();
  m.on(ready("t-resize-2", "resize"), 20, out);
  m.on(ev::runner_changed{runner_capabilities{{"echo"}, {}}}, 20, out);
  m.on(ev::free_slots{1, 1, 20, {}}, 20, out);
  m.tick(20, out);
  CHECK(offered(out).empty());
}

TEST_CASE("a task whose locks this node does not hold waits, READY, and is "
          "looked at again, while the others are offered",
          "[ready_queue][mutex]") {
  std::set<std::string> held;          // the locks this node holds
  std::vector<std::string> asked;      // task:lock, as take_locks was asked
  queue_config cfg;
  cfg.take_locks = [&](const wire::TaskSpec& spec, std::uint32_t) {
    bool all = true;
    for (const auto& l : spec.locks())
      if (!held.count(l)) {
        asked.push_back(spec.id() + ":" + l);
        all = false;
      }
    return all;
  };
  auto locked = [](const std::string& id, std::vector<std::string> locks) {
    auto e = ready(id, "echo");
    auto spec = std::make_shared<wire::TaskSpec>(*e.spec);
    for (auto& l : locks)
      spec->add_locks(l);
    e.spec = spec;
    return e;
  };
  ready_queue_machine m("a", cfg);
  ev::events out;
  m.on(locked("t-db", {"db"}), 0, out);
  m.on(locked("t-db-cache", {"db", "cache"}), 0, out);
  m.on(ready("t-free", "echo"), 0, out);
  m.on(ev::free_slots{3, 3, 0, {}}, 0, out);

  m.tick(0, out);
  CHECK(offered(out) == std::set<std::string>{"t-free"});
  CHECK(std::count(asked.begin(), asked.end(), "t-db:db") == 1);
  CHECK(std::count(asked.begin(), asked.end(), "t-db-cache:cache") == 1);
  // Nothing changes on the wire when a lock is granted: the queue looks
  // again after lock_recheck_ms.
  REQUIRE(m.next_due());
  CHECK(*m.next_due() == cfg.lock_recheck_ms);

  held.insert("db");
  ev::events second;
  m.tick(cfg.lock_recheck_ms, second);
  CHECK(offered(second) == std::set<std::string>{"t-db"}); // cache still held elsewhere

  held.insert("cache");
  ev::events third;
  m.tick(2 * cfg.lock_recheck_ms, third);
  CHECK(offered(third) == std::set<std::string>{"t-db-cache"});
}

TEST_CASE("without a lock check every ready task is offered, locks or not",
          "[ready_queue][mutex]") {
  queue_config cfg; // take_locks unset: a node without the mutex subsystem
  ready_queue_machine m("a", cfg);
  ev::events out;
  auto e = ready("t-db", "echo");
  auto spec = std::make_shared<wire::TaskSpec>(*e.spec);
  spec->add_locks("db");
  e.spec = spec;
  m.on(e, 0, out);
  m.on(ev::free_slots{1, 1, 0, {}}, 0, out);
  m.tick(0, out);
  CHECK(offered(out) == std::set<std::string>{"t-db"});
}

TEST_CASE("a long queue of tasks waiting for a lock never lets one of them "
          "through, whatever order the matching walks",
          "[ready_queue][mutex]") {
  queue_config cfg;
  cfg.take_locks = [](const wire::TaskSpec&, std::uint32_t) { return false; };
  ready_queue_machine m("a", cfg);
  ev::events out;
  for (int i = 0; i < 300; ++i) {
    auto e = ready("t-" + std::to_string(i), "echo");
    auto spec = std::make_shared<wire::TaskSpec>(*e.spec);
    spec->add_locks("db");
    e.spec = spec;
    m.on(e, 0, out);
  }
  ev::live_nodes live; // a peer with free seats: the common matching runs
  live.count = 2;
  live.peer_seats["b"] = ev::seats{2, 0};
  m.on(live, 0, out);
  m.on(ev::free_slots{4, 4, 0, {}}, 0, out);
  for (millis t = 0; t <= 20 * cfg.claim_stagger_ms; t += 10)
    m.tick(t, out);
  CHECK(offered(out).empty());
}

namespace {

ev::task_changed with_spec(ev::task_changed e,
                           const std::function<void(wire::TaskSpec&)>& edit) {
  auto spec = std::make_shared<wire::TaskSpec>(*e.spec);
  edit(*spec);
  e.spec = spec;
  return e;
}

// The EXPIRED states a node announced (as INFO ops it originates).
std::vector<std::string> expired_told(const ev::events& out) {
  std::vector<std::string> ids;
  for (const auto& o : test::emitted<ev::originate>(out))
    if (o.op.has_info() && o.op.info().phase() == wire::EXPIRED)
      ids.push_back(o.op.info().task_id());
  return ids;
}

} // namespace

TEST_CASE("a delayed task is offered no earlier than its not-before time, "
          "and the queue wakes for it",
          "[ready_queue][policy]") {
  ready_queue_machine m("a", queue_config{});
  ev::events out;
  m.on(with_spec(ready("late", "echo"),
                 [](wire::TaskSpec& s) { s.set_not_before_ms(5000); }),
       1000, out);
  m.on(ready("now", "echo"), 1000, out);
  m.on(ev::free_slots{2, 2, 1000, {}}, 1000, out);
  m.tick(1000, out);
  CHECK(offered(out) == std::set<std::string>{"now"});
  REQUIRE(m.next_due() == millis{5000});
  out.clear();
  m.tick(4999, out);
  CHECK(offered(out).empty());
  m.tick(5000, out);
  CHECK(offered(out) == std::set<std::string>{"late"});
  // The offer says it became ready at its not-before time, not at enqueue.
  CHECK(test::emitted<ev::task_offer>(out).back().ready_ms == 5000);
}

TEST_CASE("a re-queued attempt waits out the backoff its state carries",
          "[ready_queue][policy]") {
  ready_queue_machine m("a", queue_config{});
  ev::events out;
  auto retry = ready("t", "echo");
  retry.state.set_attempt(2);
  retry.state.set_not_before_ms(3000);
  m.on(retry, 1000, out);
  m.on(ev::free_slots{1, 1, 1000, {}}, 1000, out);
  m.tick(2999, out);
  CHECK(offered(out).empty());
  m.tick(3000, out);
  CHECK(offered(out) == std::set<std::string>{"t"});
}

// A node that missed attempt 2's claim still holds it claimable when
// attempt 3 arrives with a backoff (seed 83 of the policy sweep started it
// early).
TEST_CASE("a claimable attempt replaced by a later one with a backoff is not "
          "offered before that backoff ends",
          "[ready_queue][policy]") {
  ready_queue_machine m("a", queue_config{});
  ev::events out;
  auto second = ready("t", "echo");
  second.state.set_attempt(2);
  m.on(second, 1000, out);
  auto third = ready("t", "echo");
  third.state.set_attempt(3);
  third.state.set_not_before_ms(3000);
  m.on(third, 1500, out);
  m.on(ev::free_slots{1, 1, 1500, {}}, 1500, out);
  m.tick(1500, out);
  m.tick(2999, out);
  CHECK(offered(out).empty());
  m.tick(3000, out);
  CHECK(offered(out) == std::set<std::string>{"t"});
}

TEST_CASE("an expired task is never offered, its enqueuer says EXPIRED at "
          "once, another node a re-queue timeout later",
          "[ready_queue][policy]") {
  queue_config cfg;
  auto expiring = [](const std::string& enqueuer) {
    return with_spec(ready("t", "echo"), [&](wire::TaskSpec& s) {
      s.set_enqueuer(enqueuer);
      s.set_not_before_ms(2000); // still delayed when it expires
      s.set_expires_ms(1500);
    });
  };
  SECTION("the enqueuer, with no free slot") {
    ready_queue_machine m("a", cfg);
    ev::events out;
    m.on(expiring("a"), 1000, out);
    REQUIRE(m.next_due() == millis{1500});
    m.tick(1500, out);
    CHECK(expired_told(out) == std::vector<std::string>{"t"});
    CHECK(m.counters().expired == 1);
    auto o = test::emitted<ev::originate>(out).front().op.info();
    CHECK(o.time_ms() == 1500); // the same state wherever it is told
  }
  SECTION("another node, free all along: never offers it, tells later") {
    ready_queue_machine m("c", cfg);
    ev::events out;
    m.on(expiring("b"), 1000, out);
    m.on(ev::free_slots{1, 1, 1000, {}}, 1000, out);
    for (millis t = 1000; t < 1500 + cfg.running_timeout_ms; t += 50)
      m.tick(t, out);
    CHECK(offered(out).empty());
    CHECK(expired_told(out).empty());
    m.tick(1500 + cfg.running_timeout_ms, out);
    CHECK(offered(out).empty());
    CHECK(expired_told(out) == std::vector<std::string>{"t"});
  }
}

TEST_CASE("a task goes first to its enqueuer's free slot only if the "
          "enqueuer advertises it runs that kind",
          "[ready_queue]") {
  queue_config cfg; // "a": one slot, one prefetch seat
  ready_queue_machine m("a", cfg);
  ev::events out;
  ev::live_nodes live;
  live.count = 2;
  SECTION("b runs it: b's own task is b's, a waits for its stagger") {
    live.peer_seats["b"] = ev::seats{1, 0, false, {{"echo"}, {}}};
    m.on(live, 0, out);
    m.on(ready("t", "echo"), 0, out);
    m.on(ev::free_slots{2, 1, 0, {}}, 0, out);
    m.tick(0, out);
    CHECK(offered(out).empty());
  }
  SECTION("b does not: the task is matched like any other, here to a") {
    live.peer_seats["b"] = ev::seats{1, 0, false, {{"sleep"}, {}}};
    m.on(live, 0, out);
    m.on(ready("t", "echo"), 0, out);
    m.on(ev::free_slots{2, 1, 0, {}}, 0, out);
    m.tick(0, out);
    // b is still matched a turn of its own (it advertises a free slot),
    // so a gets the task only if its turn comes first; either way a
    // claims it at the latest after its stagger.
    for (millis t = 0; t <= 10 * cfg.claim_stagger_ms; t += 10)
      m.tick(t, out);
    CHECK(offered(out) == std::set<std::string>{"t"});
  }
}

TEST_CASE("in a cluster of more free nodes than the matching takes, the "
          "first ones in the order of turns are matched tasks and the others "
          "wait for their stagger",
          "[ready_queue]") {
  // 101 idle single-slot nodes and 100 ready tasks: without the bound every
  // node but one would be matched a task at once.
  std::vector<std::string> nodes;
  for (int i = 0; i < 101; ++i)
    nodes.push_back("n" + std::to_string(i));
  auto order = in_turn_order(nodes);
  auto run = [&](const std::string& self) {
    queue_config cfg;
    cfg.prefetch = 0;
    ready_queue_machine m(self, cfg);
    ev::events out;
    ev::live_nodes live;
    live.count = nodes.size();
    for (const auto& n : nodes)
      if (n != self)
        live.peer_seats[n] = ev::seats{1, 0};
    m.on(live, 0, out);
    for (int t = 0; t < 100; ++t)
      m.on(ready("t" + std::to_string(t), "echo"), 0, out);
    m.on(ev::free_slots{1, 1, 0, {}}, 0, out);
    m.tick(0, out);
    return test::emitted<ev::task_offer>(out);
  };
  auto early = run(order[10]);
  REQUIRE(early.size() == 1);
  CHECK(early.front().matched);
  CHECK(run(order[70]).empty()); // its stagger has not come yet
}
