#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "vocabulary/queue_messages.hpp"
#include "known_tasks/known_tasks.hpp"
#include "communication/op_log.hpp"
#include "vocabulary/version_vector.hpp"

using namespace dice;

TEST_CASE("version vector: contiguous prefix, ops past a gap, behind",
          "[known_tasks]") {
  version_vector v;
  CHECK(v.observe("a#1", 1));
  CHECK_FALSE(v.observe("a#1", 1)); // duplicate
  CHECK(v.observe("a#1", 3));        // past a gap
  CHECK(v.get("a#1") == 1);
  CHECK(v.seen("a#1", 3));
  CHECK_FALSE(v.seen("a#1", 2));
  CHECK(v.observe("a#1", 2)); // fills the gap
  CHECK(v.get("a#1") == 3);

  version_vector w;
  w.observe("a#1", 1);
  w.observe("a#1", 5); // 5 only, past a gap its origin may never fill
  CHECK(v.behind(w));  // v lacks 5
  CHECK(w.behind(v));  // w lacks 2, 3
  // The wire form keeps ops past a gap.
  wire::Heartbeat hb;
  w.to_wire(hb.mutable_versions());
  CHECK(version_vector::from_wire(hb.versions()) == w);
  v.raise_to(w);
  CHECK_FALSE(v.behind(w));
}

TEST_CASE("version vector: a wire form out of order or with repeats reads "
          "as the highest seq per origin",
          "[known_tasks]") {
  wire::Heartbeat hb;
  auto add = [&](const char* origin, std::uint64_t seq) {
    auto* e = hb.add_versions();
    e->set_origin(origin);
    e->set_seq(seq);
    return e;
  };
  add("c#1", 4);
  add("a#1", 2)->add_beyond(4);
  add("c#1", 7);
  add("b#2", 1);
  auto v = version_vector::from_wire(hb.versions());
  CHECK(v.get("a#1") == 2);
  CHECK(v.seen("a#1", 4));
  CHECK_FALSE(v.seen("a#1", 3));
  CHECK(v.get("b#2") == 1);
  CHECK(v.get("c#1") == 7);
  CHECK(v.entries().size() == 3);
  // Sorted again on the way out: the same vector read back.
  wire::Heartbeat again;
  v.to_wire(again.mutable_versions());
  CHECK(again.versions(0).origin() == "a#1");
  CHECK(version_vector::from_wire(again.versions()) == v);
  // A join takes the larger prefix per origin and keeps unseen gaps.
  version_vector w;
  w.observe("a#1", 1);
  w.observe("d#1", 1);
  w.join(v);
  CHECK(w.get("a#1") == 2);
  CHECK(w.seen("a#1", 4));
  CHECK(w.get("c#1") == 7);
  CHECK(w.get("d#1") == 1);
  CHECK_FALSE(w.behind(v));
  CHECK(v.behind(w)); // v lacks d#1
}

TEST_CASE("op log: resends what a peer lacks, snapshot once compacted",
          "[known_tasks]") {
  op_log log(100);
  version_vector mine;
  for (std::uint64_t s = 1; s <= 5; ++s) {
    mine.observe("a#1", s);
    log.add("a#1", s, make_remove("t" + std::to_string(s),
                                  make_op_id("a#1", s)));
  }
  version_vector have;
  have.observe("a#1", 1);
  have.observe("a#1", 2);
  auto ops = log.missing(have, mine, 10);
  REQUIRE(ops);
  CHECK(ops->size() == 3);
  CHECK(ops->front().remove().task_id() == "t3");
  CHECK(log.missing(have, mine, 2)->size() == 2); // batched
  // Every live member has seen up to 3: those go; a peer at 0 needs a
  // snapshot now.
  log.compact([](const std::string&) { return 3; });
  CHECK(log.size() == 2);
  have.observe("a#1", 3);
  REQUIRE(log.missing(have, mine, 10));
  CHECK(log.missing(have, mine, 10)->size() == 2);
  CHECK_FALSE(log.missing(version_vector{}, mine, 10));
  // Bounded: the oldest op goes first.
  op_log small(2);
  for (std::uint64_t s = 1; s <= 3; ++s)
    small.add("b#1", s, make_remove("x", make_op_id("b#1", s)));
  CHECK(small.size() == 2);
  CHECK(small.evicted() == 1);
}

TEST_CASE("replicas that receive the same messages in any order and any "
          "number of times are identical",
          "[known_tasks]") {
  // A history of one task: enqueue, competing claims, a re-queue, another
  // claim, a heartbeat, DONE, a late claim of the old attempt.
  wire::TaskSpec spec;
  spec.set_id("t");
  auto claim = [](const std::string& node, millis at) {
    wire::Claim c;
    c.set_node_id(node);
    c.set_battery(50);
    c.set_dequeue_time_ms(at);
    return c;
  };
  std::vector<wire::Message> history;
  history.push_back(make_enqueue(spec, make_op_id("a#1", 1)));
  history.push_back(make_dequeue("t", 1, claim("b", 10), make_op_id("b#1", 1)));
  history.push_back(make_dequeue("t", 1, claim("c", 9), make_op_id("c#1", 1)));
  history.push_back(make_info("t", ready_state(2), 0, nullptr));
  history.back().mutable_info()->mutable_op()->CopyFrom(make_op_id("a#1", 2));
  history.push_back(make_dequeue("t", 2, claim("b", 30), make_op_id("b#1", 2)));
  wire::TaskState done;
  done.set_phase(wire::DONE);
  done.set_attempt(2);
  *done.mutable_claim() = claim("b", 30);
  done.set_result("r");
  done.set_finished_time_ms(40);
  wire::OpId op = make_op_id("b#1", 3);
  history.push_back(make_info("t", done, 40, &op));
  history.push_back(make_dequeue("t", 1, claim("d", 5), make_op_id("d#1", 1)));

  auto replay = [](const std::vector<wire::Message>& msgs) {
    known_tasks r;
    for (const auto& m : msgs) {
      if (m.has_enqueue()) {
        r.learn_spec(m.enqueue().spec());
        r.merge_state("t", initial_state());
      } else {
        r.merge_state("t", *state_of(m));
      }
    }
    return r;
  };
  auto reference = replay(history);
  CHECK(reference.find("t")->state.phase() == wire::DONE);
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    auto shuffled = history;
    // Duplicate some messages, then shuffle.
    for (std::size_t i = 0; i < history.size(); ++i)
      if (rng() % 3 == 0)
        shuffled.push_back(history[i]);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    auto r = replay(shuffled);
    CAPTURE(round);
    REQUIRE(r.same_as(reference));
    REQUIRE(r.digest() == reference.digest());
  }
}
