#include <catch2/catch.hpp>

#include "simulation/lockstep.hpp"

using namespace dice;
using namespace dice::test;

namespace {

lockstep three_nodes(queue_config cfg = {}) {
  lockstep net;
  net.add("a", cfg);
  net.add("b", cfg);
  net.add("c", cfg);
  return net;
}

} // namespace

TEST_CASE("removeByID tops everything: the running execution is canceled",
          "[queue]") {
  auto net = three_nodes();
  net.task_ms = 3000;
  net.at("a").submit(spec_of("t"), net.now);
  net.at("a").submit(spec_of("waiting", -5), net.now);
  net.flush();
  net.run_for(500);
  REQUIRE(net.starts_of("t") == 1);
  auto runner = net.started[0].node;
  REQUIRE(net.at("c").remove("t", net.now));
  net.flush();
  REQUIRE(net.canceled.size() == 1);
  CHECK(net.canceled[0].node == runner);
  net.run_for(4000);
  for (auto& n : net.nodes) {
    CHECK(phase_on(*n, "t") == wire::REMOVED);
  }
  // A later DONE report cannot bring it back.
  CHECK_FALSE(net.at("a").remove("t", net.now));
}

TEST_CASE("removeByID of a READY task: nobody ever executes it", "[queue]") {
  auto net = three_nodes();
  net.at("a").submit(spec_of("t"), net.now);
  REQUIRE(net.at("a").remove("t", net.now));
  net.flush();
  net.run_for(2000);
  CHECK(net.starts_of("t") == 0);
  for (auto& n : net.nodes)
    CHECK(phase_on(*n, "t") == wire::REMOVED);
}

TEST_CASE("a failed execution is retried with the next attempt up to "
          "max_attempts",
          "[queue]") {
  queue_config cfg;
  cfg.max_attempts = 3;
  auto net = three_nodes(cfg);
  std::map<std::uint32_t, int> attempts_seen;

  SECTION("always failing: FAILED after max_attempts executions") {
    net.outcome = [&](auto&, auto&, std::uint32_t attempt) {
      ++attempts_seen[attempt];
      return false;
    };
    net.at("a").submit(spec_of("t"), net.now);
    net.flush();
    net.run_for(6000);
    CHECK(net.starts_of("t") == 3);
    CHECK(attempts_seen == std::map<std::uint32_t, int>{{1, 1}, {2, 1}, {3, 1}});
    for (auto& n : net.nodes) {
      const auto* t = n->replica().find("t");
      CHECK(t->state.phase() == wire::FAILED);
      CHECK(t->state.attempt() == 3);
      CHECK(t->state.reason() == "boom");
    }
  }
  SECTION("failing once: DONE on the second attempt") {
    net.outcome = [&](auto&, auto&, std::uint32_t attempt) {
      ++attempts_seen[attempt];
      return attempt > 1;
    };
    net.at("a").submit(spec_of("t"), net.now);
    net.flush();
    net.run_for(6000);
    CHECK(net.starts_of("t") == 2);
    for (auto& n : net.nodes) {
      const auto* t = n->replica().find("t");
      CHECK(t->state.phase() == wire::DONE);
      CHECK(t->state.attempt() == 2);
    }
  }
}

TEST_CASE("an executor that goes silent: its task returns to READY with the "
          "next attempt and runs elsewhere",
          "[queue]") {
  auto net = three_nodes();
  net.task_ms = 1000;
  net.at("a").submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(300);
  REQUIRE(net.starts_of("t") == 1);
  auto runner = net.started[0].node;
  net.down = {runner}; // crashed: no heartbeats, no DONE
  net.executing.clear();
  auto announced_before = net.count_sent(wire::Message::kInfo);
  net.run_for(queue_config{}.running_timeout_ms + queue_config{}.requeue_jitter_ms + 50);
  // Every survivor computed the same READY(2); usually one announced it.
  std::size_t requeues = 0;
  for (auto& n : net.nodes)
    if (n->id() != runner) {
      requeues += n->counters().requeues;
      CAPTURE(n->id());
      CHECK(n->replica().find("t")->state.attempt() == 2);
    }
  CHECK(requeues >= 1);
  CHECK(requeues <= 2);
  CHECK(net.count_sent(wire::Message::kInfo) > announced_before);
  net.run_for(3000);
  REQUIRE(net.starts_of("t") == 2);
  CHECK(net.started[1].attempt == 2);
  CHECK(net.started[1].node != runner);
  for (auto& n : net.nodes)
    if (n->id() != runner)
      CHECK(phase_on(*n, "t") == wire::DONE);
}

TEST_CASE("an executor declared dead: its task is re-queued at once",
          "[queue]") {
  auto net = three_nodes();
  net.task_ms = 5000;
  net.at("a").submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(300);
  REQUIRE(net.starts_of("t") == 1);
  auto runner = net.started[0].node;
  net.down = {runner};
  net.executing.clear();
  for (auto& n : net.nodes)
    if (n->id() != runner)
      n->on_peer_dead(runner);
  net.flush();
  for (auto& n : net.nodes)
    if (n->id() != runner) {
      CHECK(n->replica().find("t")->state.phase() == wire::READY);
      CHECK(n->replica().find("t")->state.attempt() == 2);
    }
  net.run_for(300);
  CHECK(net.starts_of("t") == 2);
}

TEST_CASE("an executor whose heartbeats were lost keeps its execution and "
          "claims the new attempt",
          "[queue]") {
  auto net = three_nodes();
  net.task_ms = 4000;
  net.at("a").submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(300);
  REQUIRE(net.starts_of("t") == 1);
  auto runner = net.started[0].node;
  // Its RUNNING heartbeats are lost; it is alive and hears everything.
  net.drop = [&](auto& from, auto&, const wire::Message& m) {
    return from == runner && m.has_info();
  };
  net.run_for(queue_config{}.running_timeout_ms + queue_config{}.requeue_jitter_ms + 50);
  net.drop = nullptr;
  net.run_for(4000);
  CHECK(net.at(runner).counters().reclaims >= 1);
  CHECK(net.starts_of("t") == 1); // no second execution
  for (auto& n : net.nodes) {
    const auto* t = n->replica().find("t");
    CHECK(t->state.phase() == wire::DONE);
    CHECK(t->state.claim().node_id() == runner);
    CHECK(t->state.attempt() >= 2);
  }
}

TEST_CASE("a claim left by a previous incarnation is re-queued by the "
          "restarted node",
          "[queue]") {
  auto net = three_nodes();
  net.task_ms = 10'000;
  net.versions_every_ms = 100;
  net.at("a").submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(300);
  REQUIRE(net.starts_of("t") == 1);
  auto runner = net.started[0].node;
  // Restart with an empty replica; nobody has noticed the crash yet.
  net.replace(runner, {}, 2);
  net.run_for(1000); // catches up by state transfer, finds its stale claim
  CHECK(net.at(runner).counters().requeues >= 1);
  net.run_for(12'000);
  CHECK(net.starts_of("t") == 2);
  for (auto& n : net.nodes) {
    CHECK(phase_on(*n, "t") == wire::DONE);
    CHECK(n->replica().same_as(net.nodes[0]->replica()));
  }
}

TEST_CASE("user cancel ends a task CANCELED everywhere", "[queue]") {
  auto net = three_nodes();
  net.task_ms = 3000;
  net.at("a").submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(500);
  REQUIRE(net.starts_of("t") == 1);
  REQUIRE(net.at("c").cancel("t", net.now));
  net.flush();
  CHECK(net.canceled.size() == 1);
  net.run_for(4000);
  for (auto& n : net.nodes)
    CHECK(phase_on(*n, "t") == wire::CANCELED);
  CHECK_FALSE(net.at("a").cancel("t", net.now));
}
