// What a replica holding a task tells the one node that needs it, alone:
// the answer to a question asked of it directly, and, to a sender that
// claims a task that ended or that another claim holds, the task.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "common/emitted_events.hpp"
#include "known_tasks/claim_of.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "vocabulary/queue_messages.hpp"

using namespace dice;
using dice::test::claim_of;

namespace {

// Node `id` holding task "t" (enqueued by "e"), seeing `members` live.
known_tasks_machine holder(const std::string& id,
                           const std::vector<std::string>& members = {}) {
  known_tasks_machine k(id, id + "#1", queue_config{});
  ev::events out;
  wire::TaskSpec spec;
  spec.set_id("t");
  spec.set_enqueuer("e");
  spec.set_kind("sleep");
  k.on(ev::merge_message{make_enqueue(spec, make_op_id("e#1", 1)), true}, 0, out);
  ev::live_nodes live;
  for (const auto& m : members)
    if (m != id)
      live.peer_seats[m] = {};
  live.count = live.peer_seats.size() + 1;
  k.on(live, 0, out);
  return k;
}

wire::Message claim(const std::string& node, millis at, std::uint64_t seq = 1) {
  return make_dequeue("t", 1, claim_of(node, at), make_op_id(node + "#1", seq));
}

wire::Message done_by(const std::string& node) {
  wire::TaskState s;
  s.set_phase(wire::DONE);
  s.set_attempt(1);
  *s.mutable_claim() = claim_of(node, 10);
  s.set_finished_time_ms(50);
  return make_info("t", s, 50, nullptr);
}

std::vector<ev::send_to> told(known_tasks_machine& k, const wire::Message& m,
                              millis now) {
  ev::events out;
  k.on(ev::merge_message{m, true}, now, out);
  return test::emitted<ev::send_to>(out);
}

} // namespace

TEST_CASE("answered alone: a question asked of this node alone is answered at "
          "once and to the asker alone, and one asked of everyone waits the "
          "resolver's back-off",
          "[known_tasks][unknown]") {
  auto k = holder("a");
  ev::events out;
  k.on(ev::question_heard{"t", "c", true}, 10, out);
  auto sent = test::emitted<ev::send_to>(out);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].peer == "c");
  REQUIRE(sent[0].message.has_take_my_task());
  CHECK(sent[0].message.take_my_task().spec().kind() == "sleep");
  CHECK(test::emitted<ev::known_question>(out).empty());
  out.clear();
  k.on(ev::question_heard{"t", "c", false}, 10, out);
  CHECK(test::emitted<ev::send_to>(out).empty());
  CHECK(test::emitted<ev::known_question>(out).size() == 1);
  out.clear();
  k.on(ev::question_heard{"nope", "c", true}, 10, out); // not known: silent
  CHECK(out.empty());
}

TEST_CASE("answered alone: a node that missed the ENQUEUE asks the node whose "
          "message named the task", "[known_tasks][unknown]") {
  known_tasks_machine k("a", "a#1", queue_config{});
  ev::events out;
  k.on(ev::merge_message{claim("c", 10), true}, 10, out);
  auto unknown = test::emitted<ev::unknown_seen>(out);
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].witness == "c");
}

TEST_CASE("answered alone: the node whose claim ended a task tells a sender "
          "that claims it again, at once and alone",
          "[known_tasks][unknown]") {
  auto k = holder("b");
  told(k, claim("b", 10), 10);
  told(k, done_by("b"), 50);
  auto sent = told(k, claim("c", 60, 1), 60);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].peer == "c");
  REQUIRE(sent[0].message.has_already_finished_task());
  CHECK(sent[0].message.already_finished_task().state().phase() == wire::DONE);
  // Its own RUNNING heartbeat overtaken by the end: nothing to tell.
  wire::TaskState running;
  running.set_phase(wire::RUNNING);
  running.set_attempt(1);
  *running.mutable_claim() = claim_of("b", 10);
  CHECK(told(k, make_info("t", running, 40, nullptr), 70).empty());
}

TEST_CASE("answered alone: the node whose claim holds a task tells a later "
          "claimer the claim it missed, before its window ends",
          "[known_tasks][unknown]") {
  auto k = holder("a");
  told(k, claim("a", 10), 10);
  auto sent = told(k, claim("c", 30), 30);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].peer == "c");
  REQUIRE(sent[0].message.has_take_my_task());
  CHECK(sent[0].message.take_my_task().state().claim().node_id() == "a");
  // A better claim than ours is no news to its sender.
  CHECK(told(k, claim("d", 5), 40).empty());
}

TEST_CASE("answered alone: besides the holder, the first behind_tellers "
          "nodes by rendezvous rank tell a sender, other ones for another "
          "sender", "[known_tasks][unknown]") {
  std::vector<std::string> members;
  for (int i = 0; i < 40; ++i)
    members.push_back("n" + std::to_string(i));
  auto tellers = queue_config{}.behind_tellers;
  REQUIRE(tellers > 0);
  std::vector<known_tasks_machine> nodes;
  for (const auto& id : members) {
    nodes.push_back(holder(id, members));
    told(nodes.back(), claim("x", 10), 10); // x ended it, and is not among them
    told(nodes.back(), done_by("x"), 50);
  }
  auto tellers_of = [&](const std::string& sender) {
    std::vector<std::string> who;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (const auto& m : told(nodes[i], make_dequeue("t", 1, claim_of(sender, 60),
                                                       make_op_id(sender + "#1", 1)),
                                60)) {
        CHECK(m.peer == sender);
        CHECK(m.message.has_already_finished_task());
        who.push_back(members[i]);
      }
    return who;
  };
  auto first = tellers_of("s1");
  CHECK(first.size() == tellers);
  auto second = tellers_of("s2");
  CHECK(second.size() == tellers);
  CHECK(first != second); // the load spreads over the nodes
  // The sender itself, if a member, is not among its tellers.
  auto own = tellers_of("n7");
  CHECK(own.size() == tellers);
  CHECK(std::find(own.begin(), own.end(), "n7") == own.end());
}
