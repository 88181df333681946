// Claim contention on production nodes (actor_cluster): idle nodes that
// know each other match tasks to seats and stagger the rest, so a task
// costs one claim, not one per node; a loser deaf to the winner is told
// by helpers; a burst spreads one task per node with no wait; a task
// matched to a node gone silent is claimed by another after the stagger.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "node_cases.hpp"
#include "ready_queue/claim_matching.hpp"
#include "simulation/actor_cluster.hpp"
#include "vocabulary/queue_messages.hpp"

using namespace dice;
using namespace dice::test;

namespace {

std::vector<wire::TaskSpec> sleeps(int n, millis ms) {
  return std::vector<wire::TaskSpec>(static_cast<std::size_t>(n), sleep_task(ms));
}

wire::TaskSpec sleep_from(millis not_before, millis ms) {
  auto s = sleep_task(ms);
  s.set_not_before_ms(not_before);
  return s;
}

// Claims, all nodes together, for three tasks submitted in one message
// to eight idle nodes; `delayed`: claimable only 500 ms later.
std::uint64_t claims_for(millis stagger, bool delayed) {
  queue_config q;
  q.claim_stagger_ms = stagger;
  actor_cluster c(13, {}, q);
  start_nodes(c, 8);
  auto specs = sleeps(3, 500);
  if (delayed)
    for (auto& s : specs)
      s.set_not_before_ms(c.now() + 500);
  std::string error;
  auto tasks = c.submit_many("n1", specs, error);
  REQUIRE(tasks);
  REQUIRE(tasks->size() == 3);
  c.step(3500);
  for (const auto& t : *tasks) {
    CAPTURE(t);
    CHECK(c.executions().at(t) == 1);
  }
  auto rows = c.tasks_of("n6");
  REQUIRE(rows.size() == 3);
  for (const auto& row : rows)
    CHECK(row.state.phase() == wire::DONE);
  return total(c, &queue_counters::claims);
}

} // namespace

TEST_CASE("on production nodes idle nodes that know each other stagger "
          "their claims: one claim per task instead of one per seat",
          "[sim][node][claims]") {
  CHECK(claims_for(queue_config{}.claim_stagger_ms, false) == 3);
  // Without staggering every idle node claims at once, with each of its
  // seats (its slot and its prefetch), the heads of its own walk. The
  // tasks become claimable together once every replica holds them: else
  // the enqueuer's own claims ride with its ENQUEUEs and the others never
  // see those tasks READY.
  CHECK(claims_for(0, true) == 8 * (queue_config{}.slots + queue_config{}.prefetch));
}

TEST_CASE("on production nodes tasks claimable only from a not-before "
          "time are staggered too, one claim per task",
          "[sim][node][claims]") {
  // The stagger counts from when the task became claimable, not from when
  // a node learnt of it: else, when the not-before time passes, every idle
  // node claims at once with every seat (16 claims here, before the fix).
  // A retry's backoff is a not-before time too.
  CHECK(claims_for(queue_config{}.claim_stagger_ms, true) == 3);
}

TEST_CASE("on production nodes a losing claimer that cannot hear the winner "
          "is told by other nodes before its window ends",
          "[sim][node][claims]") {
  // Two defences: ranking's claim helpers (an INFO of the winning claim)
  // and known_tasks' tellers (the task, with it).
  auto starts_with_helpers = [](std::size_t helpers, std::size_t tellers = 0) {
    queue_config q;
    q.claim_helpers = helpers;
    q.behind_tellers = tellers;
    q.claim_stagger_ms = 0; // all three claim at once
    actor_cluster c(13, {}, q);
    start_nodes(c, 3);
    // Claimable in 500 ms: every replica holds it by then, and all three
    // claim in the same millisecond. n1's claim wins: the enqueuer's.
    auto task = c.submit("n1", sleep_from(c.now() + 500, 2000));
    REQUIRE(task);
    // From now on nothing from n1 reaches n2: neither n1's claim nor its
    // answer to n2's.
    c.drop_messages([](const std::string& from, const std::string& to,
                       const wire::Message&) {
      return from == "n1" && to == "n2";
    });
    c.step(500);
    REQUIRE(total(c, &queue_counters::claims) == 3);
    // Past every claim window, before n1's execution ends (and long
    // before n2, deaf to n1, would take it for dead).
    c.step(queue_config{}.claim_window_ms * 3);
    return c.executions().count(*task) ? c.executions().at(*task) : 0;
  };
  // Alone, n1 cannot stop n2: n2 executes too.
  CHECK(starts_with_helpers(0) == 2);
  // n3 knows n1's better claim and tells n2, by either defence.
  CHECK(starts_with_helpers(3) == 1);
  CHECK(starts_with_helpers(0, 3) == 1);
}

TEST_CASE("on production nodes a burst of tasks on idle nodes: each node "
          "claims a different task at once, none waits a stagger and no "
          "claim loses", "[sim][node][claims]") {
  actor_cluster c(13, {}, queue_config{});
  start_nodes(c, 16);
  const millis submitted = c.now();
  std::string error;
  auto tasks = c.submit_many("n1", sleeps(16, 2000), error);
  REQUIRE(tasks);
  c.step(queue_config{}.claim_window_ms + 50);
  REQUIRE(c.runs().size() == 16);
  std::set<std::string> runners;
  for (const auto& r : c.runs()) {
    CAPTURE(r.task_id, r.node, r.start - submitted);
    runners.insert(r.node);
    // Started when the matched claim window ended, not staggered behind
    // it: the ENQUEUE's and the claim's 1 ms on the wire, and a
    // millisecond of the step, on top.
    CHECK(r.start - submitted <= queue_config{}.matched_claim_window_ms + 3);
  }
  CHECK(runners.size() == 16); // one task per node
  CHECK(total(c, &queue_counters::claims) == 16);
}

TEST_CASE("on production nodes a task matched to a node that went silent is "
          "claimed by another after the stagger", "[sim][node][claims]") {
  const queue_config q;
  actor_cluster c(13, {}, q);
  auto ids = start_nodes(c, 4);
  // n1 submits, busy with a task of its own: it would take a task it
  // submits itself while it has a free slot.
  auto busy = c.submit("n1", 3000);
  REQUIRE(busy);
  c.step(50);
  REQUIRE(runs_of(c, *busy).size() == 1);
  REQUIRE(runs_of(c, *busy)[0].node == "n1");
  // The common matching gives a lone task to the free node that takes the
  // first turn (the order of turns is fixed): it is the one that goes
  // silent.
  std::map<std::string, std::size_t> free;
  for (const auto& id : ids)
    if (id != "n1")
      free[id] = q.slots;
  std::string silent;
  for (const auto& id : ids)
    if (!match_claims({{"any task"}}, free, id).empty())
      silent = id;
  REQUIRE(!silent.empty());
  CAPTURE(silent);
  // Its queue goes silent, unnoticed: its membership heartbeats still say
  // it is alive and idle, so the others still match the task to it.
  c.drop_messages([silent](const std::string& from, const std::string& to,
                           const wire::Message& m) {
    return (from == silent || to == silent)
           && classify(m) != queue_message::none;
  });
  const millis submitted = c.now();
  auto matched = c.submit("n1", 100);
  REQUIRE(matched);
  c.step(1000);
  auto runs = runs_of(c, *matched);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].node != silent);
  CHECK(runs[0].node != "n1"); // a free slot, not n1's prefetch seat
  CHECK(runs[0].ok);
  // Nobody claimed at once: the others waited their stagger first.
  CHECK(runs[0].start - submitted >= q.claim_window_ms + q.claim_stagger_ms);
  for (const auto& id : ids)
    if (id != silent)
      CHECK(row_of(c, id, *matched).state.phase() == wire::DONE);
}

TEST_CASE("on production nodes a task submitted to an idle node runs there "
          "at once, with no claim window and no rival claim",
          "[sim][node][claims]") {
  queue_config q;
  q.matched_claim_window_ms = 20; // longer than any delay: a wait would show
  actor_cluster c(13, {}, q);
  start_nodes(c, 4);
  for (const auto* at : {"n1", "n2", "n3", "n4", "n2"}) {
    const millis submitted = c.now();
    auto task = c.submit(at, 0);
    REQUIRE(task);
    c.step(200);
    auto runs = runs_of(c, *task);
    REQUIRE(runs.size() == 1);
    CAPTURE(at, *task);
    CHECK(runs[0].node == at);
    // A millisecond for the submit's acknowledgement, one for the step.
    CHECK(runs[0].start - submitted <= 2);
  }
  CHECK(total(c, &queue_counters::claims) == 5);
  CHECK(total(c, &queue_counters::claims_lost) == 0);
  check_converged(c);
  SECTION("a busy node's task goes to an idle one, which waits its window") {
    auto busy = c.submit("n3", 2000);
    REQUIRE(busy);
    c.step(50);
    REQUIRE(runs_of(c, *busy).size() == 1);
    const millis submitted = c.now();
    // n3's prefetch seat may take it: then it waits behind the running
    // task; either way no claim starts before its window ends.
    auto next = c.submit("n3", 0);
    REQUIRE(next);
    c.step(200);
    auto runs = runs_of(c, *next);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].node != "n3");
    CHECK(runs[0].start - submitted >= q.matched_claim_window_ms);
  }
}
