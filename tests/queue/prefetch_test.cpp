// Claims ahead of execution (prefetch): a node holds more claims than it
// has slots, the extra ones waiting in its executor. They are claims like
// any other: a node that dies holding them gets them re-queued, and the
// tasks run elsewhere.
#include <catch2/catch.hpp>

#include <set>

#include "simulation/lockstep.hpp"

using namespace dice;
using namespace dice::test;

TEST_CASE("a node that dies holding claims it has not started yet gets "
          "them re-queued, and every task still runs to DONE",
          "[queue][prefetch]") {
  queue_config holder; // one slot, one claim ahead
  holder.slots = 1;
  holder.prefetch = 1;
  queue_config plain = holder;
  plain.prefetch = 0;
  lockstep net;
  net.add("a", holder);
  net.add("b", plain);
  net.versions_every_ms = 100;
  net.run_for(250); // a and b know each other: three seats in all
  net.task_ms = 5000;
  for (auto id : {"t1", "t2", "t3"})
    net.at("b").submit(spec_of(id), net.now);
  net.flush();
  net.run_for(300);
  // Every task is claimed at once: two by a (one of them ahead of its
  // slot, waiting in its executor), one by b.
  std::set<std::string> held_by_a;
  for (auto id : {"t1", "t2", "t3"}) {
    const auto& s = net.at("b").replica().find(id)->state;
    CHECK(s.phase() == wire::RUNNING);
    if (s.claim().node_id() == "a")
      held_by_a.insert(id);
  }
  REQUIRE(held_by_a.size() == 2);
  CHECK(net.started.size() == 2); // a's slot and b's
  REQUIRE(net.queued.size() == 1);
  CHECK(net.queued.front().node == "a");

  // a dies with both claims.
  net.down = {"a"};
  auto on_a = [](auto& e) { return e.node == "a"; };
  net.executing.erase(
    std::remove_if(net.executing.begin(), net.executing.end(), on_a),
    net.executing.end());
  net.queued.erase(std::remove_if(net.queued.begin(), net.queued.end(), on_a),
                   net.queued.end());
  net.at("b").on_peer_dead("a", net.now);
  net.flush();
  for (const auto& id : held_by_a) {
    CAPTURE(id);
    const auto& s = net.at("b").replica().find(id)->state;
    CHECK(s.phase() == wire::READY);
    CHECK(s.attempt() == 2);
  }
  // b runs them (its own task first, one at a time) and all end DONE.
  net.run_for(16'000);
  for (auto id : {"t1", "t2", "t3"}) {
    CAPTURE(id);
    CHECK(phase_on(net.at("b"), id) == wire::DONE);
    CHECK(net.at("b").replica().find(id)->state.claim().node_id() == "b");
  }
}

TEST_CASE("a node claims its next task while the current one runs, and "
          "starts it the moment the slot frees",
          "[queue][prefetch]") {
  queue_config cfg;
  cfg.slots = 1;
  cfg.prefetch = 1;
  lockstep net;
  net.add("a", cfg);
  net.task_ms = 1000;
  for (auto id : {"t1", "t2", "t3"})
    net.at("a").submit(spec_of(id), net.now);
  net.flush();
  net.run_for(100);
  // Both seats claimed at once: one runs, one waits for the slot.
  CHECK(net.at("a").counters().claims == 2);
  REQUIRE(net.started.size() == 1);
  REQUIRE(net.queued.size() == 1);
  const auto first_end = net.started.front().ends;
  net.run_for(1000);
  // The slot freed: the prefetched task started that very step, and the
  // freed seat claimed the third task.
  REQUIRE(net.started.size() == 2);
  CHECK(net.started[1].ends - net.task_ms == first_end);
  CHECK(net.at("a").counters().claims == 3);
}
