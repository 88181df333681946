#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <set>

#include "common/emitted_events.hpp"
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
