#include <catch2/catch.hpp>

#include <algorithm>
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

// Attempt 1 running on `node`, as task_changed tells it.
wire::TaskState running_on(const std::string& node) {
  wire::TaskState s;
  s.set_phase(wire::RUNNING);
  s.set_attempt(1);
  s.mutable_claim()->set_node_id(node);
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
  CHECK(cfg.finished_hold_ms == queue_config{}.finished_hold_ms);
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
  auto s = running_on("b");
  ev::events out;
  m.on(ev::task_changed{"t", start("t").spec, s}, 0, out);
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

TEST_CASE("a silent executor is asked about its task before a re-queue: "
          "its end heard meanwhile ends the watch, silence re-queues the "
          "task requeue_confirm_ms after the last of requeue_questions "
          "questions, a RUNNING heartbeat keeps it",
          "[running_tasks]") {
  queue_config cfg;
  cfg.requeue_jitter_ms = 0;
  REQUIRE(cfg.requeue_confirm_ms > 0);
  REQUIRE(cfg.requeue_questions >= 1);
  auto spec = start("t").spec;
  const millis silent = cfg.running_timeout_ms; // overdue from here
  const millis confirm = cfg.requeue_confirm_ms;
  running_tasks_machine m("a", cfg, 1);
  ev::events out;
  millis now = 0;
  // Ticking every 10 ms, as the actor does while anything runs.
  auto until = [&](millis to) {
    for (; now < to; now = std::min(now + 10, to))
      m.tick(now, out);
    m.tick(now, out);
  };
  m.on(ev::task_changed{"t", spec, running_on("b")}, 0, out);
  until(silent - 10);
  CHECK(emitted<ev::send_to>(out).empty());
  until(silent);
  auto asked = emitted<ev::send_to>(out);
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].peer == "b");
  CHECK(asked[0].message.do_you_know_this_task().task_id() == "t");
  CHECK(asked[0].message.do_you_know_this_task().direct());
  CHECK(emitted<ev::originate>(out).empty());
  CHECK(m.counters().executors_asked == 1);

  SECTION("its end arrives: no re-queue") {
    auto done = running_on("b");
    done.set_phase(wire::DONE);
    m.on(ev::task_changed{"t", spec, done}, now + 5, out);
    until(now + 10 * confirm);
    CHECK(emitted<ev::originate>(out).empty());
    CHECK(m.counters().requeues == 0);
  }
  SECTION("no answer: asked again each confirmation, re-queued once the "
          "last ran out") {
    const auto questions = cfg.requeue_questions;
    for (std::uint32_t q = 2; q <= questions; ++q) {
      until(silent + (q - 1) * confirm - 10);
      CHECK(emitted<ev::send_to>(out).size() == q - 1);
      until(silent + (q - 1) * confirm);
      CHECK(emitted<ev::send_to>(out).size() == q);
      CHECK(m.counters().executors_asked == q);
    }
    const millis last = silent + questions * confirm;
    until(last - 10);
    CHECK(emitted<ev::originate>(out).empty());
    until(last);
    auto ops = emitted<ev::originate>(out);
    REQUIRE(ops.size() == 1);
    CHECK(ops[0].op.info().phase() == wire::READY);
    CHECK(ops[0].op.info().attempt() == 2);
    CHECK(emitted<ev::send_to>(out).size() == questions); // no more
  }
  SECTION("a RUNNING heartbeat: the executor lives, asked again only after "
          "another silence") {
    m.on(ev::running_heard{"t", 1, "b"}, now + 10, out);
    until(silent + 10 + silent - 10);
    CHECK(emitted<ev::originate>(out).empty());
    CHECK(emitted<ev::send_to>(out).size() == 1);
    until(silent + 10 + silent);
    CHECK(emitted<ev::send_to>(out).size() == 2);
    CHECK(emitted<ev::originate>(out).empty());
  }
}

TEST_CASE("a task held by id alone is not watched: neither silence nor "
          "death of its executor re-queues it here, and it is once its "
          "spec arrives",
          "[running_tasks]") {
  queue_config cfg;
  cfg.requeue_jitter_ms = 0;
  running_tasks_machine m("a", cfg, 1);
  auto s = running_on("b");
  ev::events out;
  // Its ENQUEUE lost here, only b's claim arrived: no spec, no number.
  m.on(ev::task_changed{"t", nullptr, s}, 0, out);
  m.tick(10 * cfg.running_timeout_ms, out);
  m.on(ev::recover_member{"b", true}, 10 * cfg.running_timeout_ms, out);
  CHECK(emitted<ev::originate>(out).empty());
  // The spec arrives: now b's silence re-queues it.
  auto spec = start("t").spec;
  m.on(ev::task_changed{"t", spec, s}, 20 * cfg.running_timeout_ms, out);
  m.on(ev::recover_member{"b", true}, 20 * cfg.running_timeout_ms, out);
  auto ops = emitted<ev::originate>(out);
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].op.info().phase() == wire::READY);
  CHECK(ops[0].op.info().attempt() == 2);
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

namespace {

// The state the INFO op this node originated asserts.
std::vector<wire::TaskState> originated(const ev::events& out) {
  std::vector<wire::TaskState> states;
  for (const auto& o : emitted<ev::originate>(out))
    if (auto s = state_of(o.op))
      states.push_back(*s);
  return states;
}

ev::start_execution start_attempt(const std::string& task_id,
                                  std::uint32_t attempt,
                                  std::uint32_t max_attempts,
                                  millis backoff_ms) {
  auto s = start(task_id);
  auto spec = std::make_shared<wire::TaskSpec>(*s.spec);
  spec->set_max_attempts(max_attempts);
  spec->set_backoff_ms(backoff_ms);
  s.spec = spec;
  s.attempt = attempt;
  s.state.set_attempt(attempt);
  return s;
}

} // namespace

TEST_CASE("a failed attempt is re-queued with the task's own attempts and "
          "backoff: doubled per attempt, half of it drawn, capped",
          "[running_tasks][policy]") {
  queue_config cfg;
  cfg.retry_backoff_max_ms = 5000;
  running_tasks_machine m("a", cfg, 7);
  auto fail_attempt = [&](std::uint32_t attempt, millis now) {
    ev::events out;
    m.on(start_attempt("t", attempt, 4, 1000), now, out);
    m.on(ev::execution_report{"t", attempt, false, "boom", now}, now, out);
    return originated(out);
  };
  for (std::uint32_t attempt = 1; attempt <= 3; ++attempt) {
    millis now = attempt * 100'000;
    auto states = fail_attempt(attempt, now);
    REQUIRE(states.size() == 1);
    CHECK(states[0].phase() == wire::READY);
    CHECK(states[0].attempt() == attempt + 1);
    // 1 s, 2 s, 4 s after the 1st, 2nd, 3rd failure: at least half of it.
    millis wait = 1000LL << (attempt - 1);
    CHECK(states[0].not_before_ms() >= now + wait / 2);
    CHECK(states[0].not_before_ms() <= now + wait);
  }
  SECTION("the cap bounds the wait") {
    auto states = fail_attempt(3, 0);
    REQUIRE(states.size() == 1);
    CHECK(states[0].not_before_ms() <= 4000);
    running_tasks_machine capped("a", cfg, 7);
    ev::events out;
    capped.on(start_attempt("u", 1, 10, 20'000), 0, out);
    capped.on(ev::execution_report{"u", 1, false, "boom", 0}, 0, out);
    REQUIRE(originated(out).size() == 1);
    CHECK(originated(out)[0].not_before_ms() <= 5000);
  }
  SECTION("the task's last attempt ends it FAILED with the reason") {
    auto states = fail_attempt(4, 1'000'000);
    REQUIRE(states.size() == 1);
    CHECK(states[0].phase() == wire::FAILED);
    CHECK(states[0].reason() == "boom");
  }
  CHECK(m.counters().retries >= 3);
}

TEST_CASE("without a policy of its own a task gets the node's attempts and "
          "is ready again at once, as before",
          "[running_tasks][policy]") {
  queue_config cfg;
  cfg.max_attempts = 2;
  running_tasks_machine m("a", cfg, 1);
  ev::events out;
  m.on(start_attempt("t", 1, 0, 0), 0, out);
  m.on(ev::execution_report{"t", 1, false, "boom", 0}, 10, out);
  REQUIRE(originated(out).size() == 1);
  CHECK(originated(out)[0].phase() == wire::READY);
  CHECK(originated(out)[0].not_before_ms() == 0);
  out.clear();
  m.on(start_attempt("t", 2, 0, 0), 20, out);
  m.on(ev::execution_report{"t", 2, false, "boom", 0}, 30, out);
  REQUIRE(originated(out).size() == 1);
  CHECK(originated(out)[0].phase() == wire::FAILED);
}

TEST_CASE("a failure no retry can fix ends the task at its first attempt",
          "[running_tasks][policy]") {
  running_tasks_machine m("a", queue_config{}, 1);
  ev::events out;
  m.on(start_attempt("t", 1, 5, 0), 0, out);
  ev::execution_report r{"t", 1, false, "sleep: payload must be milliseconds", 0};
  r.final = true;
  m.on(r, 10, out);
  REQUIRE(originated(out).size() == 1);
  CHECK(originated(out)[0].phase() == wire::FAILED);
  CHECK(originated(out)[0].attempt() == 1);
  CHECK(m.counters().retries == 0);
}

TEST_CASE("an execution that a slot took tells the others it began, once, "
          "start_mark_delay_ms later: one that ends sooner never does",
          "[running_tasks]") {
  queue_config cfg;
  cfg.start_mark_delay_ms = 100;
  running_tasks_machine m("a", cfg, 1);
  auto marks = [](const ev::events& out) {
    std::vector<wire::Info> infos;
    for (const auto& e : out)
      if (const auto* o = std::get_if<ev::originate>(&e))
        if (o->op.has_info() && o->op.info().phase() == wire::RUNNING)
          infos.push_back(o->op.info());
    return infos;
  };
  ev::events out;
  m.on(start("t"), 0, out);
  m.on(start("u"), 0, out);
  out.clear();
  SECTION("claimed ahead: no mark while no slot took it") {
    m.tick(1000, out);
    CHECK(marks(out).empty());
  }
  SECTION("a slot took it at 50: the mark at 150, carrying 50, and only once") {
    m.on(ev::execution_begun{"t", 1, 50}, 50, out);
    m.tick(149, out);
    CHECK(marks(out).empty());
    m.tick(150, out);
    auto sent = marks(out);
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].task_id() == "t");
    CHECK(sent[0].started_time_ms() == 50);
    CHECK(sent[0].claim().node_id() == "a");
    // What receivers merge: the claim's state with the mark, above the
    // DEQUEUE's and every heartbeat's.
    wire::Message msg;
    *msg.mutable_info() = sent[0];
    auto s = state_of(msg);
    REQUIRE(s);
    CHECK(s->started_time_ms() == 50);
    CHECK(compare_states(*s, start("t").state) > 0);
    CHECK(m.counters().start_marks == 1);
    out.clear();
    m.tick(2000, out);
    CHECK(marks(out).empty());
  }
  SECTION("ended before the delay: no mark, the report carries the start") {
    m.on(ev::execution_begun{"u", 1, 50}, 50, out);
    m.on(ev::execution_report{"u", 1, true, "fine", 50}, 60, out);
    m.tick(500, out);
    CHECK(marks(out).empty());
    CHECK(m.counters().start_marks == 0);
  }
  SECTION("the begun report of an older attempt is ignored") {
    m.on(ev::execution_begun{"t", 7, 50}, 50, out);
    m.tick(1000, out);
    CHECK(marks(out).empty());
  }
}
