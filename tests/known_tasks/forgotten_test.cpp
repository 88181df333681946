#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

#include "common/emitted_events.hpp"
#include "known_tasks/forgotten_set.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "vocabulary/queue_messages.hpp"

using namespace dice;

namespace {

// One number set as a plain set of (origin, n), the model the ranges keep.
using model = std::set<std::pair<std::string, std::uint64_t>>;

bool same(const forgotten_set& f, const model& m) {
  std::uint64_t n = 0;
  for (const auto& r : f.ranges())
    for (auto k = r.first(); k <= r.last(); ++k, ++n)
      if (!m.count({r.origin(), k}))
        return false;
  return n == m.size() && f.count() == m.size();
}

queue_config short_retention() {
  queue_config cfg;
  cfg.keep_finished_ms = 1000;
  cfg.forget_grid_ms = 100;
  cfg.forgotten_ids_ms = 5000;
  return cfg;
}

wire::TaskState done_at(millis t) {
  wire::TaskState s;
  s.set_phase(wire::DONE);
  s.set_attempt(1);
  s.mutable_claim()->set_node_id("b");
  s.set_result("ok");
  s.set_finished_time_ms(t);
  return s;
}

// The spec `k` sent for the task it was given: its ENQUEUE, with the
// number known_tasks gave it.
wire::Message enqueue_sent(const ev::events& out) {
  for (const auto& o : test::emitted<ev::originate>(out))
    if (o.op.has_enqueue())
      return o.op;
  FAIL("no ENQUEUE originated");
  return {};
}

} // namespace

TEST_CASE("the forgotten set keeps ranges that merge like the set of "
          "numbers they stand for",
          "[forgotten]") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    forgotten_set f, g;
    model m;
    std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> adds;
    for (int i = 0; i < 40; ++i) {
      std::string origin = rng() % 2 ? "a#1" : "b#3";
      std::uint64_t first = 1 + rng() % 60, last = first + rng() % 4;
      adds.emplace_back(origin, first, last);
    }
    for (const auto& [o, first, last] : adds) {
      bool news = false;
      for (auto k = first; k <= last; ++k)
        news |= m.emplace(o, k).second;
      CHECK(f.add(o, first, last) == news);
    }
    REQUIRE(same(f, m));
    // Any order, any number of times: the same set (a union).
    std::shuffle(adds.begin(), adds.end(), rng);
    for (const auto& [o, first, last] : adds)
      g.add(o, first, last), g.add(o, first, last);
    CHECK(g == f);
    for (std::uint64_t k = 1; k < 70; ++k)
      CHECK(f.contains("a#1", k) == (m.count({"a#1", k}) > 0));
  }
  forgotten_set dense;
  for (std::uint64_t k = 1; k <= 10'000; ++k)
    dense.add("a#1", k, k);
  CHECK(dense.range_count() == 1); // numbers forgotten in order: one range
  CHECK(dense.count() == 10'000);
}

TEST_CASE("a task that ended leaves the replica once its retention passed, "
          "and nothing brings it back",
          "[forgotten][known_tasks]") {
  known_tasks_machine k("a", "a#1", short_retention());
  ev::events out;
  wire::TaskSpec spec;
  spec.set_id("t");
  spec.set_kind("echo");
  REQUIRE(k.submit(spec, 100, out));
  auto enqueue = enqueue_sent(out);
  REQUIRE(enqueue.enqueue().spec().created().origin() == "a#1");
  REQUIRE(enqueue.enqueue().spec().created().seq() == 1);
  auto empty_digest = known_tasks{}.digest();
  k.on(ev::merge_message{enqueue, false}, 100, out);
  k.on(ev::merge_message{make_info("t", done_at(2000), 0, nullptr), true}, 2000, out);
  REQUIRE(k.replica().find("t") != nullptr);
  // Due 1 s after its end, on the 100 ms grid.
  REQUIRE(k.next_due() == millis{3100});
  out.clear();
  k.tick(3099, out);
  CHECK(k.replica().find("t") != nullptr);
  k.tick(3100, out);
  CHECK(k.replica().find("t") == nullptr);
  CHECK(k.replica().digest() == empty_digest);
  CHECK(k.counts().total() == 0);
  CHECK(k.forgotten().contains("a#1", 1));
  CHECK(k.counters().tasks_forgotten == 1);

  SECTION("a replayed ENQUEUE, a stale peer's answer, a late claim by id") {
    out.clear();
    k.on(ev::merge_message{enqueue, true}, 3200, out);
    auto stale = enqueue.enqueue().spec();
    wire::TaskState ready;
    ready.set_phase(wire::READY);
    ready.set_attempt(1);
    k.on(ev::merge_task{stale, false, ready}, 3300, out);
    wire::Claim c;
    c.set_node_id("c");
    wire::OpId none;
    k.on(ev::merge_message{make_dequeue("t", 1, c, none), true}, 3400, out);
    CHECK(k.replica().find("t") == nullptr);
    CHECK(k.counters().forgotten_refused == 3);
    CHECK(test::emitted<ev::task_changed>(out).empty());
    CHECK(test::emitted<ev::unknown_seen>(out).empty());
  }
  SECTION("once the id left the recent list, a message naming it alone "
          "makes a spec-less entry (which never runs), and the first copy of "
          "its spec that comes along removes it") {
    k.tick(3100 + 5000, out);
    wire::Claim c;
    c.set_node_id("c");
    wire::OpId none;
    k.on(ev::merge_message{make_dequeue("t", 1, c, none), true}, 9000, out);
    const auto* t = k.replica().find("t");
    REQUIRE(t != nullptr);
    CHECK_FALSE(t->has_spec);
    k.on(ev::merge_message{enqueue, true}, 9001, out);
    CHECK(k.replica().find("t") == nullptr);
    // And the id is recent again: the next claim by id is refused.
    k.on(ev::merge_message{make_dequeue("t", 1, c, none), true}, 9002, out);
    CHECK(k.replica().find("t") == nullptr);
  }
  SECTION("a snapshot of this replica starts with what it forgot") {
    out.clear();
    k.on(ev::snapshot_wanted{"b", "", version_vector{}}, 3200, out);
    auto sends = test::emitted<ev::send_to>(out);
    REQUIRE(sends.size() >= 2);
    const auto& first = sends.front().message.sync_reply();
    REQUIRE(first.forgotten_size() == 1);
    CHECK(first.forgotten(0).origin() == "a#1");
    CHECK(first.continued());
  }
}

TEST_CASE("a task's own keep_for_ms outlasts or shortens the node's",
          "[forgotten][known_tasks]") {
  known_tasks_machine k("a", "a#1", short_retention());
  ev::events out;
  auto add = [&](const std::string& id, std::optional<millis> keep) {
    wire::TaskSpec spec;
    spec.set_id(id);
    if (keep)
      spec.set_keep_for_ms(*keep);
    REQUIRE(k.submit(spec, 0, out));
    k.on(ev::merge_message{enqueue_sent(out), false}, 0, out);
    out.clear();
    k.on(ev::merge_message{make_info(id, done_at(1000), 0, nullptr), true}, 1000, out);
  };
  add("node-default", std::nullopt);
  add("longer", 60'000);
  add("none", 0);
  k.tick(1100, out);
  CHECK(k.replica().find("none") == nullptr);
  CHECK(k.replica().find("node-default") != nullptr);
  k.tick(2100, out);
  CHECK(k.replica().find("node-default") == nullptr);
  CHECK(k.replica().find("longer") != nullptr);
  k.tick(61'100, out);
  CHECK(k.replica().find("longer") == nullptr);
}

TEST_CASE("what a peer forgot drops the stale copy held here, and whatever "
          "runs or waits on it lets go",
          "[forgotten][known_tasks]") {
  known_tasks_machine k("c", "c#1", short_retention());
  ev::events out;
  wire::TaskSpec spec;
  spec.set_id("t");
  *spec.mutable_created() = make_op_id("a#1", 5);
  k.on(ev::merge_message{make_enqueue(spec, make_op_id("a#1", 9)), true}, 0, out);
  REQUIRE(k.replica().find("t") != nullptr); // READY here: it never heard more
  out.clear();
  wire::ForgottenRange r;
  r.set_origin("a#1");
  r.set_first(1);
  r.set_last(7);
  k.on(ev::merge_forgotten{{r}}, 10, out);
  CHECK(k.replica().find("t") == nullptr);
  auto changed = test::emitted<ev::task_changed>(out);
  REQUIRE(changed.size() == 1);
  CHECK(is_terminal(changed[0].state.phase()));
  CHECK(k.forgotten().contains("a#1", 6));
}

TEST_CASE("the same key submitted after its task was forgotten is a new task",
          "[forgotten][known_tasks][task_policy]") {
  known_tasks_machine k("a", "a#1", short_retention());
  ev::events out;
  wire::TaskSpec spec;
  spec.set_id("key-1");
  spec.set_key("k");
  REQUIRE(k.submit(spec, 0, out));
  k.on(ev::merge_message{enqueue_sent(out), false}, 0, out);
  k.on(ev::merge_message{make_info("key-1", done_at(10), 0, nullptr), true}, 10, out);
  k.tick(5000, out);
  REQUIRE(k.replica().find("key-1") == nullptr);
  out.clear();
  REQUIRE(k.submit(spec, 5001, out)); // numbered 2: not a forgotten number
  k.on(ev::merge_message{enqueue_sent(out), false}, 5001, out);
  const auto* t = k.replica().find("key-1");
  REQUIRE(t != nullptr);
  CHECK(t->has_spec);
  CHECK(t->spec.created().seq() == 2);
}

namespace {

// Replica a ended and forgot task "t"; replica b holds it by id alone (its
// ENQUEUE lost there, a claim arrived), so b lacks the number a forgot.
struct forgotten_and_held_by_id {
  known_tasks_machine a{"a", "a#1", short_retention()};
  known_tasks_machine b{"b", "b#1", short_retention()};
  wire::Message claim;
  ev::events out;

  forgotten_and_held_by_id() {
    wire::TaskSpec spec;
    spec.set_id("t");
    spec.set_kind("echo");
    REQUIRE(a.submit(spec, 100, out));
    a.on(ev::merge_message{enqueue_sent(out), false}, 100, out);
    wire::Claim c;
    c.set_node_id("c");
    wire::OpId none;
    claim = make_dequeue("t", 1, c, none);
    b.on(ev::merge_message{claim, true}, 150, out);
    a.on(ev::merge_message{make_info("t", done_at(2000), 0, nullptr), true}, 2000, out);
    a.tick(3100, out);
    REQUIRE(a.replica().find("t") == nullptr);
    REQUIRE(b.replica().find("t") != nullptr);
    REQUIRE_FALSE(b.replica().find("t")->has_spec);
    out.clear();
  }

  // What a broadcasts when its answer is due.
  wire::Message answer_of_a(millis now) {
    a.on(ev::answer_due{"t"}, now, out);
    auto sent = test::emitted<ev::broadcast>(out);
    REQUIRE(sent.size() == 1);
    return sent[0].message;
  }
};

// As communication hands an answer on.
ev::merge_task as_merge(const wire::Message& m) {
  const auto& a = m.already_finished_task();
  return ev::merge_task{a.spec(), a.forgotten(), a.state(), a.forgotten()};
}

} // namespace

TEST_CASE("a replica that forgot a task lately answers a question about it "
          "that it forgot it, and a replica holding it by id alone drops it",
          "[forgotten][known_tasks]") {
  forgotten_and_held_by_id f;
  f.a.on(ev::question_heard{"t"}, 3200, f.out);
  CHECK(test::emitted<ev::known_question>(f.out).size() == 1);
  auto answer = f.answer_of_a(3300);
  REQUIRE(answer.has_already_finished_task());
  CHECK(answer.already_finished_task().forgotten());
  CHECK(answer.already_finished_task().task_id() == "t");

  f.out.clear();
  f.b.on(as_merge(answer), 3400, f.out);
  CHECK(f.b.replica().find("t") == nullptr);
  // Whatever held it (a watch of its executor) lets go, as of a removal.
  auto changed = test::emitted<ev::task_changed>(f.out);
  REQUIRE(changed.size() == 1);
  CHECK(changed[0].state.phase() == wire::REMOVED);
  CHECK(test::emitted<ev::tasks_forgotten>(f.out).size() == 1);
  // The id is recent at b now: the same claim again is refused.
  f.b.on(ev::merge_message{f.claim, true}, 3500, f.out);
  CHECK(f.b.replica().find("t") == nullptr);
}

TEST_CASE("a peer's snapshot holding by id alone a task forgotten here "
          "lately is refused and answered, so the peer drops the task too",
          "[forgotten][known_tasks]") {
  forgotten_and_held_by_id f;
  // b's snapshot chunk, as communication hands it on.
  const auto* held = f.b.replica().find("t");
  wire::TaskSpec only_id;
  only_id.set_id("t");
  f.a.on(ev::merge_task{only_id, true, held->state}, 3200, f.out);
  CHECK(f.a.replica().find("t") == nullptr);
  CHECK(test::emitted<ev::known_question>(f.out).size() == 1);
  f.b.on(as_merge(f.answer_of_a(3300)), 3400, f.out);
  CHECK(f.b.replica().find("t") == nullptr);
  SECTION("a late claim by id is refused without an answer (its sender "
          "holds the spec, or asks)") {
    f.out.clear();
    f.a.on(ev::merge_message{f.claim, true}, 3500, f.out);
    CHECK(test::emitted<ev::known_question>(f.out).empty());
  }
}

TEST_CASE("a forgotten answer leaves alone a task held with its spec, and "
          "once the id left the recent list nobody answers so",
          "[forgotten][known_tasks]") {
  forgotten_and_held_by_id f;
  SECTION("held with its spec: its own retention forgets it, by number") {
    known_tasks_machine c("c", "c#1", short_retention());
    wire::TaskSpec spec;
    spec.set_id("t");
    spec.set_kind("echo");
    wire::TaskState ready;
    ready.set_phase(wire::READY);
    ready.set_attempt(1);
    c.on(ev::merge_task{spec, false, ready}, 100, f.out);
    c.on(as_merge(f.answer_of_a(3300)), 3400, f.out);
    CHECK(c.replica().find("t") != nullptr);
  }
  SECTION("after forgotten_ids_ms") {
    f.a.tick(3100 + 5000, f.out);
    f.out.clear();
    f.a.on(ev::question_heard{"t"}, 9000, f.out);
    CHECK(test::emitted<ev::known_question>(f.out).empty());
  }
}
