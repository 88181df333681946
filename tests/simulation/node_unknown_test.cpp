// Unknown-task resolution (seed 000, algorithm 2) on production nodes
// (actor_cluster): a node that hears of a task it does not know asks, and
// one peer answers with the task (or says it already finished); with the
// never_want strategy nobody asks and anti-entropy brings the task.
// (Ports of the lockstep cases of tests/queue/unknown_resolution_test.cpp.)
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "simulation/actor_cluster.hpp"
#include "vocabulary/queue_messages.hpp"

using namespace dice;

namespace {

std::uint64_t sent(const actor_cluster& c, const std::string& kind) {
  auto it = c.traffic().by_kind.find(kind);
  return it == c.traffic().by_kind.end() ? 0 : it->second;
}

const task_row* find(const std::vector<task_row>& rows, const std::string& id) {
  for (const auto& r : rows)
    if (r.spec.id() == id)
      return &r;
  return nullptr;
}

// Starts the nodes a millisecond apart, so their incarnations differ, as
// those of dice-node processes started one after another: each node's
// subsystems draw their random waits from its incarnation alone.
void start_apart(actor_cluster& c, const std::vector<std::string>& ids) {
  for (const auto& id : ids) {
    c.start(id);
    c.step(1);
  }
  c.step(1500);
}

// Every replica holds the same states.
void check_converged(actor_cluster& c) {
  auto reference = c.tasks_of("n1");
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    auto rows = c.tasks_of(id);
    REQUIRE(rows.size() == reference.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      CHECK(rows[i].state.SerializeAsString()
            == reference[i].state.SerializeAsString());
  }
}

} // namespace

TEST_CASE("on production nodes a node that missed the ENQUEUE learns the "
          "task, exactly one node answers", "[sim][node][unknown]") {
  // Responders draw random back-offs: two that fire within one network
  // delay of each other both answer (harmless, the answers merge). A wide
  // range makes that rare enough to expect exactly one answer per seed.
  queue_config q;
  q.resolver.backoff_max_ms = 2000;
  q.resolver.resolve_window_ms = 2500;
  auto seed = GENERATE(range<std::uint64_t>(1, 6));
  INFO("seed " << seed);
  actor_cluster c(seed, {}, q);
  start_apart(c, {"n1", "n2", "n3", "n4"});
  // n4 misses the ENQUEUE, then hears the DEQUEUE naming the task. Sync
  // replies are lost too: else its version vector, behind, fetches the
  // ENQUEUE by anti-entropy, racing the answer.
  c.drop_messages([](const std::string&, const std::string& to,
                     const wire::Message& m) {
    return to == "n4" && (m.has_enqueue() || m.has_sync_reply());
  });
  wire::TaskSpec spec;
  spec.set_kind("sleep");
  spec.set_payload("2000");
  auto task = c.submit("n1", spec);
  REQUIRE(task);
  c.step(2200);
  CHECK(sent(c, "do_you_know_this_task") == 1);
  CHECK(sent(c, "take_my_task") + sent(c, "already_finished_task") == 1);
  CHECK(sent(c, "take_my_task") == 1);
  auto rows = c.tasks_of("n4");
  const auto* t = find(rows, *task);
  REQUIRE(t != nullptr);
  REQUIRE(t->has_spec);
  CHECK(t->spec.payload() == "2000");
  c.drop_messages(nullptr);
  c.step(3000);
  check_converged(c);
}

TEST_CASE("on production nodes an asker about a finished task gets "
          "ALREADY_FINISHED_TASK", "[sim][node][unknown]") {
  actor_cluster c(3, {}, queue_config{});
  start_apart(c, {"n1", "n2", "n3"});
  // No queue message reaches n3 (its membership still hears the others).
  c.drop_messages([](const std::string&, const std::string& to,
                     const wire::Message& m) {
    return to == "n3" && classify(m) != queue_message::none;
  });
  auto task = c.submit("n1", 200);
  REQUIRE(task);
  c.step(2000);
  {
    auto rows = c.tasks_of("n1");
    REQUIRE(find(rows, *task) != nullptr);
    REQUIRE(find(rows, *task)->state.phase() == wire::DONE);
    REQUIRE(find(c.tasks_of("n3"), *task) == nullptr);
  }
  // A late REMOVE reaches n3, which does not know the task. Sync replies
  // stay lost, so only the resolver can tell it.
  c.drop_messages([](const std::string&, const std::string& to,
                     const wire::Message& m) {
    return to == "n3" && m.has_sync_reply();
  });
  REQUIRE(c.remove("n2", *task));
  c.step(600);
  CHECK(sent(c, "already_finished_task") == 1);
  CHECK(sent(c, "take_my_task") == 0);
  auto rows = c.tasks_of("n3");
  const auto* t = find(rows, *task);
  REQUIRE(t != nullptr);
  CHECK(t->has_spec);
  CHECK(t->state.phase() == wire::REMOVED);
  c.drop_messages(nullptr);
  c.step(2000);
  check_converged(c);
}

TEST_CASE("on production nodes with never_want unknown tasks are left to "
          "anti-entropy", "[sim][node][unknown]") {
  queue_config q;
  q.resolver.strategy = resolve_strategy::never_want;
  actor_cluster c(3, {}, q);
  start_apart(c, {"n1", "n2", "n3"});
  c.drop_messages([](const std::string&, const std::string& to,
                     const wire::Message& m) {
    return to == "n3" && m.has_enqueue();
  });
  auto task = c.submit("n1", 200);
  REQUIRE(task);
  // Heartbeats carry version vectors all the time on production nodes
  // (the lockstep case exchanged none for a second first): n3, behind,
  // syncs, and nobody asks.
  c.step(2000);
  CHECK(sent(c, "do_you_know_this_task") == 0);
  auto rows = c.tasks_of("n3");
  const auto* t = find(rows, *task);
  REQUIRE(t != nullptr);
  CHECK(t->has_spec);
  CHECK(c.counters_of("n3").sync_requests >= 1);
}

TEST_CASE("on production nodes started in the same millisecond one node "
          "answers an unknown task too", "[sim][node][unknown]") {
  // Nodes that share an incarnation (started in the same millisecond; or,
  // with a data dir, a first start's) must still draw different back-offs:
  // seeded with the incarnation alone, every node answered together, none
  // suppressed, and all drew the same re-queue jitter.
  queue_config q;
  q.resolver.backoff_max_ms = 2000;
  q.resolver.resolve_window_ms = 2500;
  actor_cluster c(1, {}, q);
  for (const auto* id : {"n1", "n2", "n3", "n4"})
    c.start(id);
  c.step(1500);
  c.drop_messages([](const std::string&, const std::string& to,
                     const wire::Message& m) {
    return to == "n4" && (m.has_enqueue() || m.has_sync_reply());
  });
  REQUIRE(c.submit("n1", 2000));
  c.step(2200);
  CHECK(sent(c, "do_you_know_this_task") == 1);
  CHECK(sent(c, "take_my_task") == 1);
}
