#include <catch2/catch.hpp>

#include <variant>

#include "common/emitted_events.hpp"
#include "known_tasks/claim_of.hpp"
#include "vocabulary/queue_messages.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "known_tasks/schedules.hpp"

using namespace dice;
using dice::test::claim_of;

namespace {

std::size_t count_claims_heard(const ev::events& out) {
  return test::emitted<ev::claim_heard>(out).size();
}

// The record of schedule "beat": an echo every second, enqueued at a.
wire::TaskSpec beat_record() {
  wire::TaskSpec record;
  record.set_id(schedule_record_id("beat"));
  record.set_kind(schedule_kind);
  record.set_enqueuer("a");
  record.mutable_schedule()->set_name("beat");
  record.mutable_schedule()->set_every_ms(1000);
  record.mutable_schedule()->mutable_task()->set_kind("echo");
  return record;
}

} // namespace

TEST_CASE("our own claim is always answered with where it stands: by the "
          "change it made, or, if a better claim was merged first, by "
          "claim_heard",
          "[known_tasks]") {
  known_tasks_machine k("a", "a#1", queue_config{});
  wire::TaskSpec spec;
  spec.set_id("t");
  spec.set_enqueuer("a");
  ev::events out;
  REQUIRE(k.submit(spec, 0, out));
  wire::OpId none;
  auto mine = make_dequeue("t", 1, claim_of("a", 10), none);
  auto better = make_dequeue("t", 1, claim_of("b", 5), none);
  SECTION("ours changes the task: task_changed names it") {
    out.clear();
    k.on(ev::merge_message{mine, false}, 10, out);
    CHECK(count_claims_heard(out) == 0);
    bool named = false;
    for (const auto& e : out)
      if (auto c = std::get_if<ev::task_changed>(&e))
        named = c->state.claim().node_id() == "a";
    CHECK(named);
  }
  SECTION("a better claim came first: ours changes nothing, claim_heard "
          "carries the better one") {
    k.on(ev::merge_message{better, true}, 8, out);
    out.clear();
    k.on(ev::merge_message{mine, false}, 10, out);
    REQUIRE(count_claims_heard(out) == 1);
    for (const auto& e : out) {
      CHECK_FALSE(std::holds_alternative<ev::task_changed>(e));
      if (auto h = std::get_if<ev::claim_heard>(&e))
        CHECK(h->state.claim().node_id() == "b");
    }
  }
}

// A user operation reaches the replica as its own op comes back merged.
template <class Op>
void apply_user_op(known_tasks_machine& k, millis now, Op op) {
  ev::events out;
  REQUIRE(op(out));
  for (auto& o : test::emitted<ev::originate>(out)) {
    ev::events merged;
    k.on(ev::merge_message{o.op, false}, now, merged);
  }
}

TEST_CASE("the API's queries get the tasks they name or the states they ask "
          "for, and counts per state, without the rest of the replica",
          "[known_tasks]") {
  known_tasks_machine k("a", "a#1", queue_config{});
  auto apply = [&k](millis now, auto op) { apply_user_op(k, now, op); };
  for (std::string id : {"t1", "t2", "t3", "t4"}) {
    wire::TaskSpec spec;
    spec.set_id(id);
    spec.set_enqueuer("a");
    apply(0, [&](ev::events& out) { return k.submit(spec, 0, out); });
  }
  apply(1, [&](ev::events& out) { return k.cancel("t2", 1, out); });
  apply(2, [&](ev::events& out) { return k.remove("t3", 2, out); });
  auto ids_of = [](const std::vector<task_row>& rows) {
    std::vector<std::string> ids;
    for (const auto& r : rows)
      ids.push_back(r.spec.id());
    return ids;
  };
  SECTION("no ids, no state: every task, in id order") {
    CHECK(ids_of(k.query({})) == std::vector<std::string>{"t1", "t2", "t3", "t4"});
  }
  SECTION("ids: those tasks in the order asked, unknown ones left out") {
    auto rows = k.query({{"t4", "nope", "t1"}, std::nullopt});
    CHECK(ids_of(rows) == std::vector<std::string>{"t4", "t1"});
    CHECK(rows.front().owner == "a");
    CHECK(rows.front().has_spec);
  }
  SECTION("a state: only tasks in it, also among the ids named") {
    CHECK(ids_of(k.query({{}, wire::READY})) == std::vector<std::string>{"t1", "t4"});
    CHECK(ids_of(k.query({{"t2", "t4"}, wire::CANCELED}))
          == std::vector<std::string>{"t2"});
  }
  SECTION("counts per state") {
    auto c = k.counts();
    CHECK(c.total() == 4);
    CHECK(c.by_phase[wire::READY] == 2);
    CHECK(c.by_phase[wire::CANCELED] == 1);
    CHECK(c.by_phase[wire::REMOVED] == 1);
    CHECK(c.by_phase[wire::DONE] == 0);
  }
}

TEST_CASE("a page of the task list: filters by kind and node, ids in "
          "numeric order, after and limit", "[known_tasks]") {
  known_tasks_machine k("a", "a#1", queue_config{});
  auto apply = [&k](millis now, auto op) { apply_user_op(k, now, op); };
  for (int i = 1; i <= 12; ++i) {
    wire::TaskSpec spec;
    spec.set_id("a-" + std::to_string(i));
    spec.set_kind(i % 3 == 0 ? "cpu" : "sleep");
    spec.set_enqueuer("a");
    apply(0, [&](ev::events& out) { return k.submit(spec, 0, out); });
  }
  auto ids_of = [](const std::vector<task_row>& rows) {
    std::vector<std::string> ids;
    for (const auto& r : rows)
      ids.push_back(r.spec.id());
    return ids;
  };
  task_query q;
  q.limit = 4;
  CHECK(ids_of(k.query(q)) == std::vector<std::string>{"a-1", "a-2", "a-3", "a-4"});
  q.after = "a-4";
  CHECK(ids_of(k.query(q)) == std::vector<std::string>{"a-5", "a-6", "a-7", "a-8"});
  q.after = "a-10";
  CHECK(ids_of(k.query(q)) == std::vector<std::string>{"a-11", "a-12"});
  task_query cpu;
  cpu.kind = "cpu";
  CHECK(ids_of(k.query(cpu)) == std::vector<std::string>{"a-3", "a-6", "a-9", "a-12"});
  cpu.kind = "nope";
  CHECK(k.query(cpu).empty());
  task_query by_node;
  by_node.node = "b"; // nothing is claimed yet
  CHECK(k.query(by_node).empty());
}

TEST_CASE("a schedule's record is counted in no state: the counts of /stats "
          "and /metrics are the tasks a user lists, whatever the record goes "
          "through",
          "[known_tasks][schedules]") {
  known_tasks_machine k("a", "a#1", queue_config{});
  auto apply = [&k](millis now, auto op) { apply_user_op(k, now, op); };
  wire::TaskSpec task;
  task.set_id("t1");
  task.set_kind("echo");
  task.set_enqueuer("a");
  apply(0, [&](ev::events& out) { return k.submit(task, 0, out); });
  auto record = beat_record();
  apply(0, [&](ev::events& out) { return k.submit(record, 0, out); });
  REQUIRE(k.replica().has_spec(record.id()));
  auto ready_only = [&k] {
    const auto& c = k.counts();
    CHECK(c.total() == 1);
    CHECK(c.by_phase[wire::READY] == 1);
  };
  ready_only();
  // Removed: its REMOVED is no task's either.
  apply(10, [&](ev::events& out) { return k.remove(record.id(), 10, out); });
  REQUIRE(k.replica().find(record.id())->state.phase() == wire::REMOVED);
  ready_only();
}

TEST_CASE("a tick held by id alone is enqueued when its turn comes: its "
          "ENQUEUE may be lost for good, and every node can build its spec",
          "[known_tasks][schedules]") {
  known_tasks_machine k("a", "a#1", queue_config{});
  auto apply = [&k](millis now, auto op) { apply_user_op(k, now, op); };
  auto record = beat_record();
  apply(0, [&](ev::events& out) { return k.submit(record, 0, out); });
  // Its peer enqueued tick 1000 and claimed it; only the claim got here
  // before that peer crashed.
  auto tick = tick_task(record.schedule(), 1000);
  wire::Claim claim;
  claim.set_node_id("b");
  claim.set_dequeue_time_ms(1000);
  ev::events out;
  k.on(ev::merge_message{make_dequeue(tick.id(), 1, claim, make_op_id("b#1", 2)), true},
       1000, out);
  REQUIRE(k.replica().find(tick.id()) != nullptr);
  REQUIRE_FALSE(k.replica().has_spec(tick.id()));
  // Past every node's turn (a stagger per rank; this node alone is live).
  out.clear();
  k.tick(5000, out);
  bool enqueued = false;
  for (const auto& o : test::emitted<ev::originate>(out))
    enqueued |= o.op.has_enqueue() && o.op.enqueue().spec().id() == tick.id();
  CHECK(enqueued);
}
