#include <catch2/catch.hpp>

#include "simulation/lockstep.hpp"

using namespace dice;
using namespace dice::test;
using M = wire::Message;

namespace {

std::size_t answers(const lockstep& net) {
  return net.count_sent(M::kTakeMyTask)
         + net.count_sent(M::kAlreadyFinishedTask);
}

} // namespace

TEST_CASE("a node that missed the ENQUEUE learns the task, exactly one node "
          "answers",
          "[queue]") {
  // Responders draw random back-offs: two that fire within one network
  // delay of each other both answer (harmless, the answers merge). A wide
  // range makes that rare enough to expect exactly one answer per seed.
  queue_config cfg;
  cfg.resolver.backoff_max_ms = 2000;
  cfg.resolver.resolve_window_ms = 2500;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    lockstep net;
    for (auto id : {"a", "b", "c", "d"})
      net.add(id, cfg, seed);
    net.task_ms = 2000;
    // d misses the ENQUEUE, then hears the DEQUEUE naming the task.
    net.drop = [](auto&, auto& to, const M& m) {
      return to == "d" && m.has_enqueue();
    };
    net.at("a").submit(spec_of("t"), net.now);
    net.flush();
    REQUIRE_FALSE(net.at("d").replica().has_spec("t"));
    net.run_for(2200);
    CHECK(net.count_sent(M::kDoYouKnowThisTask) == 1);
    CHECK(answers(net) == 1);
    CHECK(net.count_sent(M::kTakeMyTask) == 1);
    REQUIRE(net.at("d").replica().has_spec("t"));
    CHECK(net.at("d").replica().find("t")->spec.payload() == "payload t");
    // The silenced responders counted their suppression.
    std::uint64_t suppressed = 0;
    for (auto& n : net.nodes)
      suppressed += n->resolver().answers_suppressed();
    CHECK(suppressed == 2);
    net.run_for(3000);
    for (auto& n : net.nodes)
      CHECK(n->replica().same_as(net.nodes[0]->replica()));
  }
}

TEST_CASE("an asker about a finished task gets ALREADY_FINISHED_TASK",
          "[queue]") {
  lockstep net;
  for (auto id : {"a", "b", "c"})
    net.add(id);
  net.drop = [](auto&, auto& to, const M&) { return to == "c"; };
  net.at("a").submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(2000);
  REQUIRE(phase_on(net.at("a"), "t") == wire::DONE);
  REQUIRE(net.at("c").replica().find("t") == nullptr);
  net.drop = nullptr;
  // A late REMOVE reaches c, which does not know t.
  net.at("b").remove("t", net.now);
  net.flush();
  net.run_for(600);
  CHECK(net.count_sent(M::kAlreadyFinishedTask) == 1);
  CHECK(net.count_sent(M::kTakeMyTask) == 0);
  REQUIRE(net.at("c").replica().has_spec("t"));
  CHECK(phase_on(net.at("c"), "t") == wire::REMOVED);
  CHECK(net.at("c").replica().same_as(net.at("a").replica()));
}

TEST_CASE("never_want: unknown tasks are left to anti-entropy", "[queue]") {
  queue_config cfg;
  cfg.resolver.strategy = resolve_strategy::never_want;
  lockstep net;
  for (auto id : {"a", "b", "c"})
    net.add(id, cfg);
  net.drop = [](auto&, auto& to, const M& m) {
    return to == "c" && m.has_enqueue();
  };
  net.at("a").submit(spec_of("t"), net.now);
  net.flush();
  net.run_for(1000);
  CHECK(net.count_sent(M::kDoYouKnowThisTask) == 0);
  CHECK_FALSE(net.at("c").replica().has_spec("t"));
  // Version vectors in heartbeats show c is behind: it syncs.
  net.versions_every_ms = 200;
  net.run_for(1000);
  CHECK(net.at("c").replica().has_spec("t"));
  CHECK(net.at("c").counters().sync_requests >= 1);
}
