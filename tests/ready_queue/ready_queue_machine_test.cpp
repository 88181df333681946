#include <catch2/catch.hpp>

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

TEST_CASE("a node offers its free seats only tasks it can run; the others "
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
