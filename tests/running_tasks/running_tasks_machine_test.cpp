#include <catch2/catch.hpp>

#include <memory>
#include <variant>
#include <vector>

#include "vocabulary/queue_messages.hpp"
#include "communication/communication_machine.hpp"
#include "known_tasks/task_state.hpp"
#include "running_tasks/running_tasks_machine.hpp"
#include "common/emitted_events.hpp"

using namespace dice;
using dice::test::emitted;

namespace {

std::vector<ev::broadcast> broadcasts(const ev::events& out) {
  std::vector<ev::broadcast> b;
  for (const auto& e : out)
    if (const auto* x = std::get_if<ev::broadcast>(&e))
      b.push_back(*x);
  return b;
}

ev::start_execution start(const std::string& task_id) {
  ev::start_execution s;
  s.task_id = task_id;
  s.attempt = 1;
  s.claim.set_node_id("a");
  auto spec = std::make_shared<wire::TaskSpec>();
  spec->set_id(task_id);
  s.spec = spec;
  s.state.set_phase(wire::RUNNING);
  s.state.set_attempt(1);
  *s.state.mutable_claim() = s.claim;
  return s;
}

} // namespace

TEST_CASE("RUNNING heartbeats may wait for another broadcast, never so long "
          "that watchers time out",
          "[running_tasks]") {
  queue_config cfg;
  SECTION("defaults: a whole interval, so each rides with a membership "
          "heartbeat") {
    CHECK(cfg.running_hold_ms() == cfg.running_interval_ms);
  }
  SECTION("a tight timeout shortens the hold") {
    cfg.running_interval_ms = 200;
    cfg.running_timeout_ms = 300;
    CHECK(cfg.running_hold_ms() == 50);
    // Held the longest after one sent at once: still inside the timeout.
    CHECK(cfg.running_interval_ms + cfg.running_hold_ms()
          < cfg.running_timeout_ms);
  }
  running_tasks_machine m("a", cfg, 1);
  ev::events out;
  m.on(start("t"), 0, out);
  out.clear();
  m.tick(cfg.running_interval_ms - 1, out);
  CHECK(broadcasts(out).empty());
  m.tick(cfg.running_interval_ms, out);
  auto sent = broadcasts(out);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].hold_ms == cfg.running_hold_ms());
  CHECK(sent[0].message.info().task_id() == "t");
  CHECK(sent[0].message.info().phase() == wire::RUNNING);
}

TEST_CASE("the report that ends an execution may wait finished_hold_ms for "
          "the next broadcast, and communication keeps that hold",
          "[running_tasks]") {
  queue_config cfg;
  cfg.max_attempts = 1;
  CHECK(cfg.finished_hold_ms == defaults::finished_hold_ms);
  cfg.finished_hold_ms = 40;
  running_tasks_machine m("a", cfg, 1);
  auto ended = [&](const std::string& id, bool ok) {
    ev::events out;
    m.on(start(id), 0, out);
    out.clear();
    m.on(ev::execution_report{id, 1, ok, ok ? "fine" : "boom", 1}, 300, out);
    std::vector<ev::originate> reports;
    for (const auto& e : out)
      if (const auto* o = std::get_if<ev::originate>(&e))
        reports.push_back(*o);
    REQUIRE(reports.size() == 1);
    return reports[0];
  };
  auto done = ended("t", true);
  CHECK(done.op.info().phase() == wire::DONE);
  CHECK(done.hold_ms == 40);
  auto failed = ended("u", false);
  CHECK(failed.op.info().phase() == wire::FAILED);
  CHECK(failed.hold_ms == 40);

  communication_machine c("a", "a", cfg);
  ev::events out;
  c.on(done, 300, out);
  auto sent = broadcasts(out);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].hold_ms == 40);
  CHECK(sent[0].message.info().phase() == wire::DONE);
  out.clear();
  c.on(ev::originate{done.op}, 300, out); // a claim, say: at once
  sent = broadcasts(out);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].hold_ms == 0);
}

TEST_CASE("an execution elsewhere is not re-queued for the silence of this "
          "node's own pause, real silence still re-queues it",
          "[running_tasks]") {
  queue_config cfg;
  cfg.requeue_jitter_ms = 0;
  running_tasks_machine m("a", cfg, 1);
  wire::TaskState s;
  s.set_phase(wire::RUNNING);
  s.set_attempt(1);
  s.mutable_claim()->set_node_id("b");
  ev::events out;
  m.on(ev::task_changed{"t", nullptr, s}, 0, out);
  auto requeued = [&] {
    for (const auto& e : out)
      if (std::holds_alternative<ev::originate>(e))
        return true;
    return false;
  };
  // Ticking every 10 ms, as the actor does while anything runs.
  for (millis t = 10; t <= 500; t += 10)
    m.tick(t, out);
  // SIGSTOP for 3 s: b's RUNNING heartbeats of that time wait unread.
  m.tick(3500, out);
  CHECK_FALSE(requeued());
  m.on(ev::running_heard{"t", 1, "b"}, 3501, out);
  for (millis t = 3510; t <= 3500 + cfg.running_timeout_ms - 20; t += 10)
    m.tick(t, out);
  CHECK_FALSE(requeued());
  // Then b falls silent for real.
  for (millis t = 3500 + cfg.running_timeout_ms;
       t <= 3600 + 2 * cfg.running_timeout_ms && !requeued(); t += 10)
    m.tick(t, out);
  CHECK(requeued());
}

TEST_CASE("running_tasks judges an execution ranking hands over against "
          "what was merged since ranking looked: a better claim stops it "
          "at once, a re-queue is claimed again",
          "[running_tasks]") {
  queue_config cfg;
  running_tasks_machine m("a", cfg, 1);
  auto s = start("t");
  ev::events out;
  // Our claim merged (ranking ends its window on this state) ...
  m.on(ev::task_changed{"t", s.spec, s.state}, 1, out);
  SECTION("then a better one, heard here before the hand-over") {
    auto better = s.state;
    better.mutable_claim()->set_node_id("0");
    better.mutable_claim()->set_dequeue_time_ms(0);
    m.on(ev::task_changed{"t", s.spec, better}, 2, out);
    out.clear();
    m.on(s, 3, out);
    CHECK(emitted<ev::run_order>(out).size() == 1);
    CHECK(emitted<ev::cancel_order>(out).size() == 1);
    CHECK(emitted<ev::execution_over>(out).size() == 1);
    CHECK(m.running().executing() == 0);
  }
  SECTION("then the task's end") {
    auto done = s.state;
    done.set_phase(wire::CANCELED);
    m.on(ev::task_changed{"t", s.spec, done}, 2, out);
    out.clear();
    m.on(s, 3, out);
    CHECK(emitted<ev::cancel_order>(out).size() == 1);
    CHECK(m.running().executing() == 0);
  }
  SECTION("then a re-queue: the same execution claims the next attempt") {
    m.on(ev::task_changed{"t", s.spec, ready_state(2)}, 2, out);
    out.clear();
    m.on(s, 3, out);
    CHECK(emitted<ev::cancel_order>(out).empty());
    auto ops = emitted<ev::originate>(out);
    REQUIRE(ops.size() == 1);
    REQUIRE(ops.front().op.has_dequeue());
    CHECK(ops.front().op.dequeue().attempt() == 2);
    CHECK(m.counters().reclaims == 1);
  }
  SECTION("nothing more: it runs, and nothing is left to judge later") {
    out.clear();
    m.on(s, 3, out);
    CHECK(emitted<ev::run_order>(out).size() == 1);
    CHECK(emitted<ev::cancel_order>(out).empty());
    CHECK(m.running().executing() == 1);
  }
}

TEST_CASE("a claim of ours heard merged but never handed over is forgotten "
          "after the running timeout, so an idle node has no tick due",
          "[running_tasks]") {
  queue_config cfg;
  running_tasks_machine m("a", cfg, 1);
  auto s = start("t");
  s.claim.set_dequeue_time_ms(10);
  *s.state.mutable_claim() = s.claim;
  ev::events out;
  CHECK_FALSE(m.next_due());
  m.on(ev::task_changed{"t", s.spec, s.state}, 10, out);
  REQUIRE(m.next_due());
  auto at = *m.next_due();
  CHECK(at >= 10 + cfg.running_timeout_ms);
  m.tick(at, out);
  CHECK_FALSE(m.next_due());
}
