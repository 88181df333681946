#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "known_tasks/known_tasks.hpp"
#include "known_tasks/task_state.hpp"
#include "vocabulary/ranking.hpp"

using namespace dice;

namespace {

bool same(const wire::TaskState& a, const wire::TaskState& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

int sign(int x) {
  return (x > 0) - (x < 0);
}

wire::Claim claim_of(const std::string& node, std::uint32_t data_objects = 0,
                     std::uint32_t battery = 50) {
  wire::Claim c;
  c.set_node_id(node);
  c.set_data_objects(data_objects);
  c.set_battery(battery);
  c.set_dequeue_time_ms(1000);
  return c;
}

wire::TaskState state(wire::TaskPhase phase, std::uint32_t attempt) {
  wire::TaskState s;
  s.set_phase(phase);
  s.set_attempt(attempt);
  return s;
}

wire::TaskState running(std::uint32_t attempt, const wire::Claim& claim) {
  auto s = state(wire::RUNNING, attempt);
  *s.mutable_claim() = claim;
  return s;
}

wire::TaskState done(std::uint32_t attempt, const wire::Claim& claim,
                     const std::string& result) {
  auto s = running(attempt, claim);
  s.set_phase(wire::DONE);
  s.set_result(result);
  s.set_finished_time_ms(2000);
  return s;
}

// Few values per field, so that random states often tie on several fields.
wire::TaskState random_state(std::mt19937_64& rng) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  wire::TaskState s;
  s.set_attempt(pick(3));
  // Phase 9 stands for a phase from a newer peer.
  int phase = pick(8);
  s.set_phase(static_cast<wire::TaskPhase>(phase == 7 ? 9 : phase));
  if (pick(4) != 0) {
    auto* c = s.mutable_claim();
    c->set_node_id("n" + std::to_string(pick(3)));
    c->set_data_objects(pick(2));
    c->set_battery(pick(2) * 50);
    c->set_dequeue_time_ms(1000 + pick(2));
    c->set_device_class(pick(2));
    c->set_is_enqueuer(pick(2) == 1);
  }
  if (pick(2) != 0)
    s.set_result(pick(2) ? "ok" : "ko");
  if (pick(3) == 0)
    s.set_reason("timeout");
  if (pick(2) != 0)
    s.set_finished_time_ms(2000 + pick(2));
  if (pick(2) != 0)
    s.set_started_time_ms(1500 + pick(2));
  if (pick(2) != 0)
    s.set_ready_time_ms(1200 + pick(2));
  if (pick(3) == 0)
    s.set_not_before_ms(5000 + pick(2));
  return s;
}

} // namespace

TEST_CASE("merge is commutative, associative and idempotent",
          "[task_state]") {
  std::uint64_t seed = 20240601;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 5000; ++i) {
    auto a = random_state(rng);
    auto b = random_state(rng);
    auto c = random_state(rng);
    CAPTURE(i, a.ShortDebugString(), b.ShortDebugString(),
            c.ShortDebugString());
    REQUIRE(same(merge(a, b), merge(b, a)));
    REQUIRE(same(merge(merge(a, b), c), merge(a, merge(b, c))));
    REQUIRE(same(merge(a, a), a));
    // The merge is an upper bound of both inputs.
    REQUIRE(dominates(merge(a, b), a));
    REQUIRE(dominates(merge(a, b), b));
  }
}

TEST_CASE("the state order is total, antisymmetric and transitive",
          "[task_state]") {
  std::uint64_t seed = 7;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<wire::TaskState> states;
  for (int i = 0; i < 120; ++i)
    states.push_back(random_state(rng));
  states.push_back(wire::TaskState{});
  wire::TaskState empty_claim; // present but empty: differs from no claim
  empty_claim.mutable_claim();
  states.push_back(empty_claim);
  std::size_t equal_pairs = 0;
  for (const auto& a : states) {
    for (const auto& b : states) {
      CAPTURE(a.ShortDebugString(), b.ShortDebugString());
      auto ab = compare_states(a, b);
      REQUIRE(sign(ab) == -sign(compare_states(b, a)));
      REQUIRE((ab == 0) == same(a, b));
      equal_pairs += ab == 0;
    }
  }
  // Pairs (a, a) at least; the property above is checked on them too.
  CHECK(equal_pairs >= states.size());
  std::vector<wire::TaskState> sorted = states;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& x, const auto& y) {
              return compare_states(x, y) < 0;
            });
  for (std::size_t i = 0; i + 1 < sorted.size(); ++i)
    for (std::size_t j = i + 1; j < sorted.size(); ++j)
      REQUIRE(compare_states(sorted[i], sorted[j]) <= 0);
}

TEST_CASE("replicas that receive the same updates in any order and "
          "multiplicity converge",
          "[task_state]") {
  auto seed = GENERATE(range<std::uint64_t>(1, 201));
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<wire::TaskState> updates;
  auto n_updates = std::uniform_int_distribution<int>(1, 12)(rng);
  for (int i = 0; i < n_updates; ++i)
    updates.push_back(random_state(rng));
  std::vector<wire::TaskState> replicas;
  for (int r = 0; r < 5; ++r) {
    std::vector<wire::TaskState> inbox;
    for (const auto& u : updates) {
      auto copies = std::uniform_int_distribution<int>(1, 3)(rng);
      inbox.insert(inbox.end(), copies, u);
    }
    std::shuffle(inbox.begin(), inbox.end(), rng);
    wire::TaskState replica = state(wire::READY, 0);
    for (const auto& m : inbox)
      merge_into(replica, m);
    replicas.push_back(replica);
  }
  for (const auto& r : replicas) {
    CAPTURE(r.ShortDebugString(), replicas.front().ShortDebugString());
    REQUIRE(same(r, replicas.front()));
  }
  // And the result is the greatest update (or the initial state).
  auto greatest = *std::max_element(
    updates.begin(), updates.end(),
    [](const auto& x, const auto& y) { return compare_states(x, y) < 0; });
  CHECK(same(replicas.front(), merge(greatest, state(wire::READY, 0))));
}

TEST_CASE("terminal states rank by class above every non-terminal state",
          "[task_state]") {
  auto winner = claim_of("a");
  SECTION("REMOVED tops DONE of a higher attempt") {
    auto removed = state(wire::REMOVED, 1);
    auto later_done = done(5, winner, "ok");
    CHECK(same(merge(removed, later_done), removed));
    CHECK(same(merge(later_done, removed), removed));
  }
  SECTION("DONE beats RUNNING of a higher attempt") {
    auto finished = done(1, winner, "ok");
    auto rerun = running(2, claim_of("b", 9, 100));
    CHECK(same(merge(finished, rerun), finished));
    CHECK(same(merge(rerun, finished), finished));
    CHECK(lost_claim(merge(rerun, finished), "b", 2));
    CHECK_FALSE(lost_claim(merge(rerun, finished), "a", 1));
  }
  SECTION("DONE > CANCELED > FAILED > any non-terminal state") {
    auto d = done(1, winner, "ok");
    auto c = state(wire::CANCELED, 1);
    auto f = state(wire::FAILED, 3);
    auto r = running(9, winner);
    CHECK(compare_states(d, c) > 0);
    CHECK(compare_states(c, f) > 0);
    CHECK(compare_states(f, r) > 0);
    CHECK(compare_states(f, state(wire::READY, 9)) > 0);
  }
  SECTION("CANCELED > EXPIRED > FAILED: an expiry ends a task that did not "
          "start, a cancel or a finished run overrides it") {
    auto e = state(wire::EXPIRED, 2);
    CHECK(compare_states(state(wire::CANCELED, 1), e) > 0);
    CHECK(compare_states(done(1, winner, "ok"), e) > 0);
    CHECK(compare_states(e, state(wire::FAILED, 3)) > 0);
    CHECK(compare_states(e, running(7, winner)) > 0);
    CHECK(is_terminal(wire::EXPIRED));
    // A claim that raced the expiry loses to it: its executor stops.
    CHECK(lost_claim(merge(running(2, winner), e), "a", 2));
  }
  SECTION("two DONE reports of one attempt keep one of them everywhere") {
    auto x = done(1, claim_of("a"), "x");
    auto y = done(1, claim_of("b"), "y");
    auto m = merge(x, y);
    CHECK(same(m, merge(y, x)));
    CHECK(m.claim().node_id() == "a"); // the better claim's result
  }
}

TEST_CASE("two re-queues of one attempt keep the later not-before time, and "
          "a claim of the attempt still beats both",
          "[task_state]") {
  auto backoff = state(wire::READY, 2);
  backoff.set_not_before_ms(9000);
  auto silent = state(wire::READY, 2); // a watcher's re-queue: no backoff
  CHECK(same(merge(backoff, silent), backoff));
  CHECK(same(merge(silent, backoff), backoff));
  auto claim = running(2, claim_of("b"));
  CHECK(same(merge(backoff, claim), claim));
  CHECK(compare_states(state(wire::READY, 3), backoff) > 0);
}

TEST_CASE("a higher-attempt READY beats a lower-attempt RUNNING",
          "[task_state]") {
  auto stale = running(1, claim_of("a"));
  auto retry = state(wire::READY, 2);
  CHECK(same(merge(stale, retry), retry));
  CHECK(same(merge(retry, stale), retry));
  // The executor of the abandoned attempt learns it must stop.
  CHECK(lost_claim(merge(stale, retry), "a", 1));
  // Within one attempt, RUNNING beats READY.
  CHECK(same(merge(state(wire::READY, 1), stale), stale));
}

TEST_CASE("two RUNNING claims in one attempt: the better claim wins "
          "regardless of arrival order",
          "[task_state]") {
  auto strong = claim_of("b", 3); // more data objects
  auto weak = claim_of("a", 1);
  REQUIRE(better_claim(strong, weak));
  auto s = running(1, strong);
  auto w = running(1, weak);

  wire::TaskState at_weak = state(wire::READY, 1);
  CHECK(merge_into(at_weak, w));  // its own claim first
  CHECK_FALSE(lost_claim(at_weak, "a", 1));
  CHECK(merge_into(at_weak, s));  // then the better one
  CHECK_FALSE(merge_into(at_weak, w)); // a duplicate changes nothing

  wire::TaskState at_strong = state(wire::READY, 1);
  CHECK(merge_into(at_strong, s));
  CHECK_FALSE(merge_into(at_strong, w)); // the weaker claim arrives late

  CHECK(same(at_weak, at_strong));
  CHECK(at_weak.claim().node_id() == "b");
  CHECK(lost_claim(at_weak, "a", 1));
  CHECK_FALSE(lost_claim(at_strong, "b", 1));
}

TEST_CASE("a lottery among many claimants crowns the ranking's winner on "
          "every replica",
          "[task_state]") {
  auto seed = GENERATE(range<std::uint64_t>(1, 51));
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<wire::Claim> claims;
  for (int n = 0; n < 8; ++n) {
    auto c = claim_of("n" + std::to_string(n),
                      std::uniform_int_distribution<int>(0, 2)(rng),
                      std::uniform_int_distribution<int>(0, 2)(rng) * 50);
    c.set_dequeue_time_ms(std::uniform_int_distribution<int>(1000, 1003)(rng));
    claims.push_back(c);
  }
  auto ranked = claims;
  sort_claims(ranked);
  const auto& winner = ranked.front();
  for (int replica = 0; replica < 4; ++replica) {
    std::shuffle(claims.begin(), claims.end(), rng);
    auto s = state(wire::READY, 1);
    for (const auto& c : claims)
      merge_into(s, running(1, c));
    CAPTURE(replica, s.ShortDebugString());
    REQUIRE(s.claim().node_id() == winner.node_id());
    for (const auto& c : claims)
      CHECK(lost_claim(s, c.node_id(), 1) == (c.node_id() != winner.node_id()));
  }
}

TEST_CASE("a node keeps its claim once its own attempt is DONE",
          "[task_state]") {
  auto s = done(2, claim_of("a"), "ok");
  CHECK_FALSE(lost_claim(s, "a", 2));
  CHECK(lost_claim(s, "a", 1));
  CHECK(lost_claim(state(wire::CANCELED, 2), "a", 2));
}

TEST_CASE("a phase from a newer peer never overrides a known one",
          "[task_state]") {
  auto unknown = state(static_cast<wire::TaskPhase>(7), 9);
  auto ready = state(wire::READY, 0);
  CHECK(compare_states(unknown, ready) < 0);
  CHECK(same(merge(unknown, ready), ready));
}

TEST_CASE("two DONE reports of one execution keep its earliest timings",
          "[task_state]") {
  wire::TaskState a;
  a.set_phase(wire::DONE);
  a.set_attempt(1);
  a.mutable_claim()->set_node_id("n1");
  a.set_result("ok");
  a.set_finished_time_ms(3000);
  a.set_ready_time_ms(1000);
  a.set_started_time_ms(1200);
  auto b = a;
  b.set_started_time_ms(1300);
  auto m = merge(a, b);
  CHECK(m.started_time_ms() == 1200);
  CHECK(merge(b, a).SerializeAsString() == m.SerializeAsString());
  CHECK(m.ready_time_ms() == 1000);
}

TEST_CASE("a claim's start mark, once merged, stays: the claim's DEQUEUE "
          "and heartbeats carry none and do not take it away",
          "[task_state]") {
  wire::TaskState claimed;
  claimed.set_phase(wire::RUNNING);
  claimed.set_attempt(1);
  claimed.mutable_claim()->set_node_id("n1");
  auto begun = claimed;
  begun.set_started_time_ms(1500);
  CHECK(claimed_ahead(claimed));
  CHECK_FALSE(claimed_ahead(begun));
  CHECK(same(merge(claimed, begun), begun));
  CHECK(same(merge(begun, claimed), begun));
  // A better claim of the attempt still wins, marked or not.
  auto other = claimed;
  other.mutable_claim()->set_node_id("n2");
  bool other_better = better_claim(other.claim(), claimed.claim());
  CHECK(same(merge(begun, other), other_better ? other : begun));
  other.set_started_time_ms(1400);
  CHECK(same(merge(begun, other), other_better ? other : begun));
  // The next attempt, or the end, still replaces it.
  wire::TaskState done = begun;
  done.set_phase(wire::DONE);
  CHECK(same(merge(begun, done), done));
}

TEST_CASE("the replica's counts per state match a count of its tasks, "
          "schedules' records aside, after any sequence of specs, merges "
          "and forgets",
          "[known_tasks]") {
  auto seed = GENERATE(range<std::uint64_t>(1, 51));
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  known_tasks replica;
  for (int step = 0; step < 300; ++step) {
    auto id = "t" + std::to_string(pick(20));
    auto what = pick(12);
    if (what < 4) {
      // A spec, or a copy enqueued earlier elsewhere that replaces it: a
      // schedule's record now and then (then a task of that id again).
      wire::TaskSpec spec;
      spec.set_id(id);
      spec.set_kind("echo");
      spec.set_enqueue_time_ms(1000 - pick(1000));
      if (pick(4) == 0)
        spec.mutable_schedule()->set_name(id);
      replica.learn_spec(spec);
    } else if (what == 4) {
      replica.forget(id);
    } else {
      replica.merge_state(id, random_state(rng));
    }
    task_counts scanned;
    for (const auto& [task_id, t] : replica.tasks()) {
      if (!t.has_spec || t.spec.has_schedule())
        continue;
      auto p = static_cast<std::size_t>(t.state.phase());
      if (p < scanned.by_phase.size())
        ++scanned.by_phase[p];
      if (claimed_ahead(t.state))
        ++scanned.claimed_ahead;
    }
    REQUIRE(replica.counts().by_phase == scanned.by_phase);
    REQUIRE(replica.counts().claimed_ahead == scanned.claimed_ahead);
  }
}
