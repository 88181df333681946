// The coordinator role of queue_node: with an election running, one node
// recovers a dead member and announces the stable point; the others follow
// the announcements and keep the RUNNING timeout as the fallback.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "simulation/lockstep.hpp"

using namespace dice;
using namespace dice::test;

namespace {

lockstep four_nodes() {
  lockstep net;
  for (auto id : {"a", "b", "c", "d"})
    net.add(id);
  return net;
}

void elect(lockstep& net, const std::string& coordinator) {
  for (auto& n : net.nodes)
    n->set_coordinator(coordinator, net.now);
  net.flush();
}

/// Submits one long task from `enqueuer` and runs until someone executes it.
std::string start_long_task(lockstep& net, const std::string& enqueuer) {
  net.task_ms = 60'000;
  net.at(enqueuer).submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(300);
  REQUIRE(net.starts_of("t") == 1);
  return net.started[0].node;
}

/// A survivor other than `a` and `b`.
std::string other_than(lockstep& net, const std::string& a,
                       const std::string& b = "") {
  for (auto& n : net.nodes)
    if (n->id() != a && n->id() != b)
      return n->id();
  return "";
}

/// `crashed` go silent (their executions with them); every survivor's
/// membership then declares `dead` dead.
void crash_and_detect(lockstep& net, std::set<std::string> crashed,
                      const std::string& dead) {
  net.down = std::move(crashed);
  net.executing.erase(
    std::remove_if(net.executing.begin(), net.executing.end(),
                   [&](const auto& e) { return net.down.count(e.node) > 0; }),
    net.executing.end());
  for (auto& n : net.nodes)
    if (!net.down.count(n->id()))
      n->on_peer_dead(dead, net.now);
  net.flush();
}

} // namespace

TEST_CASE("coordinator: only the coordinator re-queues a dead executor's "
          "task, the others act on its announcement",
          "[queue][coordinator]") {
  auto net = four_nodes();
  elect(net, "b");
  auto runner = start_long_task(net, "a");
  if (runner == "b") // make sure the coordinator is not the one to die
    elect(net, "c");
  auto coord = runner == "b" ? std::string{"c"} : std::string{"b"};
  crash_and_detect(net, {runner}, runner);
  CHECK(net.count_sent(wire::Message::kRecovery) == 1);
  for (auto& n : net.nodes) {
    if (n->id() == runner)
      continue;
    CAPTURE(n->id());
    CHECK(phase_on(*n, "t") == wire::READY);
    CHECK(n->replica().find("t")->state.attempt() == 2);
    CHECK(n->counters().requeues == (n->id() == coord ? 1u : 0u));
    CHECK(n->counters().recoveries == (n->id() == coord ? 1u : 0u));
    CHECK(n->counters().recoveries_heard == (n->id() == coord ? 0u : 1u));
    CHECK(n->unrecovered().empty());
  }
  net.task_ms = 100;
  net.run_for(1000);
  CHECK(net.starts_of("t") == 2);
  CHECK(net.started[1].node != runner);
}

TEST_CASE("coordinator: when the coordinator dies too, the RUNNING timeout "
          "still re-queues the task",
          "[queue][coordinator]") {
  auto net = four_nodes();
  auto runner = start_long_task(net, "a");
  auto coord = other_than(net, runner);
  elect(net, coord);
  auto survivor = other_than(net, runner, coord);
  crash_and_detect(net, {runner, coord}, runner);
  // No announcement: the task is still RUNNING for now.
  CHECK(phase_on(net.at(survivor), "t") == wire::RUNNING);
  CHECK(net.at(survivor).unrecovered().count(runner) == 1);
  net.run_for(queue_config{}.running_timeout_ms + queue_config{}.requeue_jitter_ms + 50);
  for (auto& n : net.nodes)
    if (!net.down.count(n->id())) {
      CAPTURE(n->id());
      CHECK(n->replica().find("t")->state.attempt() == 2);
      CHECK(n->counters().recoveries == 0);
    }
}

TEST_CASE("coordinator: a node elected after a death recovers the members "
          "nobody announced",
          "[queue][coordinator]") {
  auto net = four_nodes();
  auto runner = start_long_task(net, "a");
  auto old_coord = other_than(net, runner);
  elect(net, old_coord);
  // The coordinator dies before announcing.
  crash_and_detect(net, {runner, old_coord}, runner);
  auto next = other_than(net, runner, old_coord);
  REQUIRE(phase_on(net.at(next), "t") == wire::RUNNING);
  for (auto& n : net.nodes)
    if (!net.down.count(n->id()))
      n->set_coordinator(next, net.now);
  net.flush();
  CHECK(net.at(next).counters().recoveries == 1);
  CHECK(net.count_sent(wire::Message::kRecovery) == 1);
  for (auto& n : net.nodes)
    if (!net.down.count(n->id())) {
      CAPTURE(n->id());
      CHECK(phase_on(*n, "t") == wire::READY);
      CHECK(n->replica().find("t")->state.attempt() == 2);
    }
}

TEST_CASE("coordinator: it becomes the enqueuer of record of a dead node's "
          "unfinished tasks",
          "[queue][coordinator]") {
  auto net = four_nodes();
  elect(net, "b");
  net.task_ms = 50;
  net.at("a").submit(spec_of("done"), net.now);
  net.flush();
  net.run_for(500);
  REQUIRE(phase_on(net.at("c"), "done") == wire::DONE);
  net.task_ms = 60'000;
  net.at("a").submit(spec_of("open"), net.now);
  net.flush();
  crash_and_detect(net, {"a"}, "a");
  CHECK(net.at("b").counters().adopted == 1);
  for (auto id : {"b", "c", "d"}) {
    CAPTURE(id);
    CHECK(net.at(id).owner_of("open") == "b");
    CHECK(net.at(id).owner_of("done") == "a"); // finished: nothing to answer for
  }
}

TEST_CASE("coordinator: members compact their op log only up to the stable "
          "point it announces",
          "[queue][coordinator]") {
  auto net = four_nodes();
  net.versions_every_ms = 50;
  elect(net, "a");
  bool block = true;
  net.drop = [&](const std::string&, const std::string&, const wire::Message& m) {
    return block && m.has_stable_point();
  };
  net.task_ms = 20;
  for (int i = 0; i < 5; ++i)
    net.at("c").submit(spec_of("t" + std::to_string(i)), net.now);
  net.flush();
  net.run_for(3000);
  for (auto& n : net.nodes)
    REQUIRE(n->replica().counts().by_phase[wire::DONE] == 5);
  // Every member has seen every op, yet only the coordinator may say so.
  CHECK(net.at("a").log().size() == 0);
  CHECK(net.at("a").counters().stable_points_sent >= 2);
  for (auto id : {"b", "c", "d"}) {
    CAPTURE(id);
    CHECK(net.at(id).log().size() > 0);
  }
  block = false;
  net.run_for(queue_config{}.stable_point_interval_ms + 10);
  for (auto id : {"b", "c", "d"}) {
    CAPTURE(id);
    CHECK(net.at(id).log().size() == 0);
    CHECK(net.at(id).counters().stable_points_applied >= 1);
  }
}

TEST_CASE("coordinator: a stable point from a node that is not the "
          "coordinator is rejected",
          "[queue][coordinator]") {
  auto net = four_nodes();
  net.versions_every_ms = 50;
  elect(net, "a");
  net.at("c").submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(200);
  auto before = net.at("b").log().size();
  REQUIRE(before > 0);
  wire::Message m;
  auto* e = m.mutable_stable_point()->add_stable();
  e->set_origin(net.at("c").origin());
  e->set_seq(1000);
  m.set_sender_id("c");
  net.at("b").on_message(m, net.now);
  CHECK(net.at("b").log().size() == before);
  CHECK(net.at("b").counters().rejected == 1);
}

TEST_CASE("coordinator: without an election every node recovers a dead "
          "member itself and announces nothing",
          "[queue][coordinator]") {
  auto net = four_nodes();
  auto runner = start_long_task(net, "a");
  net.down = {runner};
  net.executing.clear();
  for (auto& n : net.nodes)
    if (n->id() != runner) {
      CHECK(n->acts_as_coordinator());
      n->on_peer_dead(runner, net.now);
    }
  net.flush();
  CHECK(net.count_sent(wire::Message::kRecovery) == 0);
  for (auto& n : net.nodes)
    if (n->id() != runner)
      CHECK(n->counters().recoveries == 1);
}

TEST_CASE("coordinator: a member that hears the announcement before it "
          "detects the death itself does not recover the member again",
          "[queue][coordinator]") {
  auto net = four_nodes();
  auto runner = start_long_task(net, "a");
  auto coord = other_than(net, runner);
  auto late = other_than(net, runner, coord);
  elect(net, coord);
  net.down = {runner};
  net.executing.clear();
  net.at(coord).on_peer_dead(runner, net.now);
  net.flush();
  REQUIRE(net.at(late).counters().recoveries_heard == 1);
  net.at(late).on_peer_dead(runner, net.now); // its membership is slower
  CHECK(net.at(late).unrecovered().empty());
  // Even elected later, it leaves the dead member alone: recovered once.
  net.at(late).set_coordinator(late, net.now);
  net.flush();
  CHECK(net.at(late).counters().recoveries == 0);
  CHECK(net.count_sent(wire::Message::kRecovery) == 1);
}
