// Dependencies as one replica sees them: a child waits for its parents,
// receives their ends, and ends when a parent ends badly.
#include <catch2/catch.hpp>

#include "common/emitted_events.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "known_tasks/state_names.hpp"
#include "ready_queue/ready_queue_machine.hpp"
#include "vocabulary/queue_messages.hpp"

using namespace dice;

namespace {

wire::TaskSpec spec_of(const std::string& id, const std::string& enqueuer,
                       std::vector<std::string> after = {},
                       bool run_after_failure = false) {
  wire::TaskSpec s;
  s.set_id(id);
  s.set_kind("echo");
  s.set_enqueuer(enqueuer);
  s.set_enqueue_time_ms(1);
  s.mutable_after()->Assign(after.begin(), after.end());
  s.set_run_after_failure(run_after_failure);
  return s;
}

wire::TaskState ended(wire::TaskPhase phase, const std::string& text) {
  wire::TaskState s;
  s.set_phase(phase);
  s.set_attempt(1);
  s.set_finished_time_ms(50);
  if (phase == wire::DONE)
    s.set_result(text);
  else
    s.set_reason(text);
  return s;
}

struct replica {
  known_tasks_machine k;
  explicit replica(const std::string& id, queue_config cfg = {})
    : k(id, id + "#1", std::move(cfg)) {}
  ev::events enqueue(const wire::TaskSpec& s, millis now = 10) {
    ev::events out;
    k.on(ev::merge_message{make_enqueue(s, make_op_id("x#1", 1)), true}, now, out);
    return out;
  }
  ev::events end(const std::string& id, wire::TaskPhase phase,
                 const std::string& text, millis now = 50) {
    ev::events out;
    wire::OpId op = make_op_id("x#1", 2);
    k.on(ev::merge_message{make_info(id, ended(phase, text), now, &op), true},
         now, out);
    return out;
  }
};

// The last spec told of `id` in `out`, if any.
std::shared_ptr<const wire::TaskSpec> told(const ev::events& out,
                                           const std::string& id) {
  std::shared_ptr<const wire::TaskSpec> spec;
  for (const auto& c : test::emitted<ev::task_changed>(out))
    if (c.task_id == id)
      spec = c.spec;
  return spec;
}

std::vector<ev::originate> cancels(const ev::events& out) {
  std::vector<ev::originate> v;
  for (auto& o : test::emitted<ev::originate>(out))
    if (o.op.has_info() && o.op.info().phase() == wire::CANCELED)
      v.push_back(o);
  return v;
}

} // namespace

TEST_CASE("a child waits for every parent, then carries their results in "
          "order and may be claimed",
          "[known_tasks][parents]") {
  replica r("a");
  r.enqueue(spec_of("p1", "a"));
  r.enqueue(spec_of("p2", "a"));
  auto out = r.enqueue(spec_of("c", "a", {"p2", "p1"}));
  auto spec = told(out, "c");
  REQUIRE(spec);
  CHECK(waits_for_parents(*spec));
  out = r.end("p1", wire::DONE, "one");
  CHECK_FALSE(told(out, "c")); // p2 still runs: nothing new to tell
  out = r.end("p2", wire::DONE, "two");
  spec = told(out, "c");
  REQUIRE(spec);
  CHECK_FALSE(waits_for_parents(*spec));
  REQUIRE(spec->inputs_size() == 2);
  CHECK(spec->inputs(0).task_id() == "p2");
  CHECK(spec->inputs(0).result() == "two");
  CHECK(spec->inputs(1).task_id() == "p1");
  CHECK(spec->inputs(1).result() == "one");
}

TEST_CASE("a child heard before its parent waits for it instead of failing",
          "[known_tasks][parents]") {
  replica r("b");
  auto out = r.enqueue(spec_of("c", "a", {"p"}));
  REQUIRE(told(out, "c"));
  CHECK(waits_for_parents(*told(out, "c")));
  CHECK(cancels(out).empty());
  r.end("p", wire::DONE, "late"); // its end before its spec: still a parent
  out = r.enqueue(spec_of("p", "a"));
  auto all = r.k.query(task_query::of("c"));
  REQUIRE(all.size() == 1);
  REQUIRE(all[0].spec.inputs_size() == 1);
  CHECK(all[0].spec.inputs(0).result() == "late");
}

TEST_CASE("a parent that ends badly cancels its children, said once by the "
          "child's owner: a child that runs anyway gets the reason",
          "[known_tasks][parents]") {
  auto phase = GENERATE(wire::FAILED, wire::CANCELED, wire::EXPIRED);
  replica owner("a");
  replica other("b");
  for (auto* r : {&owner, &other}) {
    r->enqueue(spec_of("p", "a"));
    r->enqueue(spec_of("c", "a", {"p"}));
    r->enqueue(spec_of("anyway", "a", {"p"}, true));
  }
  auto out = owner.end("p", phase, "boom");
  auto c = cancels(out);
  REQUIRE(c.size() == 1);
  CHECK(c[0].op.info().task_id() == "c");
  CHECK(c[0].op.info().reason() == "parent p " + phase_name(phase));
  auto anyway = told(out, "anyway");
  REQUIRE(anyway);
  CHECK_FALSE(waits_for_parents(*anyway));
  REQUIRE(anyway->inputs_size() == 1);
  CHECK(anyway->inputs(0).phase() == phase);
  CHECK(anyway->inputs(0).reason() == "boom");
  // Not the owner: it waits for the owner's cancel rather than adding one.
  CHECK(cancels(other.end("p", phase, "boom")).empty());
  // Told again (a duplicate), the owner does not say it twice.
  CHECK(cancels(owner.end("p", phase, "boom")).empty());
}

TEST_CASE("a child whose owner stays silent is canceled by a replica that "
          "waited two running timeouts for the owner's cancel",
          "[known_tasks][parents]") {
  // The owner may have died before its coordinator knew of the child (so
  // nobody adopted it), or its adopter may have died too.
  replica other("b");
  other.enqueue(spec_of("p", "a"));
  other.enqueue(spec_of("c", "a", {"p"}));
  other.enqueue(spec_of("told", "a", {"p"}));
  CHECK(cancels(other.end("p", wire::FAILED, "boom", 100)).empty());
  const millis wait = 2 * queue_config{}.running_timeout_ms;
  REQUIRE(other.k.next_due());
  CHECK(*other.k.next_due() == 100 + wait);
  // The owner's cancel of one of them arrives in time.
  other.end("told", wire::CANCELED, "parent p failed", 200);
  ev::events out;
  other.k.tick(100 + wait - 1, out);
  CHECK(cancels(out).empty());
  other.k.tick(100 + wait, out);
  auto c = cancels(out);
  REQUIRE(c.size() == 1);
  CHECK(c[0].op.info().task_id() == "c");
  CHECK(c[0].op.info().reason() == "parent p failed");
  CHECK(other.k.counters().parent_cancels == 1);
  out.clear();
  other.k.tick(100 + 2 * wait, out);
  CHECK(cancels(out).empty()); // said once
}

TEST_CASE("inputs in a peer's spec are dropped: only the replica fills them",
          "[known_tasks][parents]") {
  replica r("a");
  auto forged = spec_of("c", "b", {"p"});
  auto* in = forged.add_inputs();
  in->set_task_id("p");
  in->set_phase(wire::DONE);
  auto out = r.enqueue(forged);
  REQUIRE(told(out, "c"));
  CHECK(waits_for_parents(*told(out, "c")));
}

TEST_CASE("a parent is kept while a child waits on it, and forgotten after",
          "[known_tasks][parents]") {
  queue_config cfg;
  cfg.keep_finished_ms = 0;
  cfg.forget_grid_ms = 0;
  replica r("a", cfg);
  r.enqueue(spec_of("p", "a"));
  r.enqueue(spec_of("c", "a", {"p", "q"}));
  r.end("p", wire::DONE, "kept");
  ev::events out;
  r.k.tick(1000, out);
  CHECK(r.k.replica().find("p") != nullptr);
  r.end("q", wire::DONE, "");
  r.end("c", wire::DONE, "child");
  r.k.tick(2000, out);
  CHECK(r.k.replica().find("p") == nullptr);
  CHECK(r.k.replica().find("c") == nullptr);
}

TEST_CASE("the ready queue offers no task whose parents have not all ended",
          "[ready_queue][parents]") {
  ready_queue_machine q("a", queue_config{});
  auto waiting = std::make_shared<const wire::TaskSpec>(spec_of("c", "a", {"p"}));
  ev::events out;
  q.on(ev::task_changed{"c", waiting, initial_state()}, 0, out);
  q.on(ev::free_slots{1, 1, 0, {}}, 0, out);
  q.tick(100, out);
  CHECK(test::emitted<ev::task_offer>(out).empty());
  auto with = std::make_shared<wire::TaskSpec>(*waiting);
  with->add_inputs()->set_task_id("p");
  q.on(ev::task_changed{"c", with, initial_state()}, 100, out);
  q.tick(200, out);
  auto offers = test::emitted<ev::task_offer>(out);
  REQUIRE(offers.size() == 1);
  CHECK(offers[0].task_id == "c");
}
