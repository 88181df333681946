#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "known_tasks/known_tasks.hpp"
#include "known_tasks/task_policy.hpp"

using namespace dice;

TEST_CASE("a policy becomes fields of the spec: delays and expiries as wall "
          "times from the submit",
          "[task_policy]") {
  task_policy p;
  p.time_limit_ms = 30'000;
  p.max_attempts = 4;
  p.backoff_ms = 2000;
  p.delay_ms = 600'000;
  p.expires_in_ms = 3'600'000;
  REQUIRE(policy_problem(p, 1'000'000).empty());
  wire::TaskSpec spec;
  apply_policy(p, 1'000'000, 0, 1, spec);
  CHECK(spec.time_limit_ms() == 30'000);
  CHECK(spec.max_attempts() == 4);
  CHECK(spec.backoff_ms() == 2000);
  CHECK(spec.not_before_ms() == 1'600'000);
  CHECK(spec.expires_ms() == 4'600'000);
  CHECK(spec.id().empty()); // no key: the node gives it a fresh id
}

TEST_CASE("policies that cannot work are refused with the field named",
          "[task_policy]") {
  millis now = 1'000'000;
  auto problem = [&](auto edit) {
    task_policy p;
    edit(p);
    return policy_problem(p, now);
  };
  CHECK_THAT(problem([](task_policy& p) { p.delay_ms = 10; p.not_before_ms = 5; }),
             Catch::Contains("not both"));
  CHECK_THAT(problem([&](task_policy& p) { p.expires_ms = now - 1; }),
             Catch::Contains("expire before it is submitted"));
  CHECK_THAT(problem([](task_policy& p) {
               p.delay_ms = 60'000;
               p.expires_in_ms = 1000;
             }),
             Catch::Contains("expire before it may start"));
  CHECK_THAT(problem([](task_policy& p) { p.max_attempts = 101; }),
             Catch::Contains("'max_attempts'"));
  CHECK_THAT(problem([](task_policy& p) { p.time_limit_ms = -1; }),
             Catch::Contains("'time_limit_ms'"));
  CHECK_THAT(problem([](task_policy& p) { p.key = std::string(257, 'k'); }),
             Catch::Contains("'key'"));
}

TEST_CASE("a key names its task: the same key, the same id, wherever it is "
          "submitted, a count derives one key per task",
          "[task_policy]") {
  task_policy p;
  p.key = "invoice 42/march";
  wire::TaskSpec at_a, at_b, other;
  apply_policy(p, 1000, 0, 1, at_a);
  apply_policy(p, 9999, 0, 1, at_b);
  CHECK(at_a.id() == at_b.id());
  CHECK(at_a.key() == "invoice 42/march");
  CHECK(at_a.id().rfind("key-", 0) == 0);
  CHECK(at_a.id().size() == 4 + 24);
  CHECK(at_a.id().find_first_of(",/ ") == std::string::npos);
  p.key = "invoice 43/march";
  apply_policy(p, 1000, 0, 1, other);
  CHECK(other.id() != at_a.id());
  wire::TaskSpec first, third;
  apply_policy(p, 1000, 0, 3, first);
  apply_policy(p, 1000, 2, 3, third);
  CHECK(first.key() == "invoice 43/march/1");
  CHECK(third.key() == "invoice 43/march/3");
  CHECK(first.id() != third.id());
}

TEST_CASE("two enqueues of one key at two nodes leave every replica with the "
          "same spec, whatever order they arrive in",
          "[task_policy][known_tasks]") {
  auto spec = [](const std::string& enqueuer, millis at) {
    wire::TaskSpec s;
    s.set_id(keyed_task_id("k"));
    s.set_key("k");
    s.set_kind("echo");
    s.set_payload("from " + enqueuer);
    s.set_enqueuer(enqueuer);
    s.set_enqueue_time_ms(at);
    return s;
  };
  std::vector<wire::TaskSpec> specs{spec("b", 2000), spec("a", 2000),
                                    spec("c", 1000), spec("a", 3000)};
  std::mt19937_64 rng(42);
  std::uint64_t digest = 0;
  for (int round = 0; round < 20; ++round) {
    std::shuffle(specs.begin(), specs.end(), rng);
    known_tasks replica;
    replica.merge_state(specs[0].id(), initial_state());
    for (const auto& s : specs)
      replica.learn_spec(s);
    for (const auto& s : specs) // again: no change
      CHECK_FALSE(replica.learn_spec(s));
    const auto* t = replica.find(keyed_task_id("k"));
    REQUIRE(t != nullptr);
    CHECK(t->spec.enqueuer() == "c"); // the first enqueued
    CHECK(replica.counts().total() == 1);
    if (round == 0)
      digest = replica.digest();
    CHECK(replica.digest() == digest);
  }
}
