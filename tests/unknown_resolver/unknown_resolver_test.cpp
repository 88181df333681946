// The asker's side of unknown-task resolution: the witnesses first, alone,
// in turn; everyone after; never more than resolve_tries questions.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "unknown_resolver/unknown_resolver.hpp"

using namespace dice;

namespace {

resolver_config asking() {
  resolver_config cfg;
  cfg.ask_delay_ms = 60;
  cfg.resolve_window_ms = 600;
  cfg.witness_window_ms = 600;
  cfg.resolve_tries = 3;
  cfg.witness_tries = 1;
  return cfg;
}

} // namespace

TEST_CASE("unknown resolver: the first question goes to the witness alone, "
          "the next ones to everyone, at most resolve_tries in all",
          "[unknown]") {
  unknown_resolver r(asking());
  CHECK_FALSE(r.unknown("t", "b", 0)); // waits the ask delay
  CHECK(r.asks_due(59).empty());
  auto first = r.asks_due(60);
  REQUIRE(first.size() == 1);
  CHECK(first[0].task_id == "t");
  CHECK(first[0].peer == "b");
  CHECK(r.asks_due(659).empty()); // its answer window
  auto second = r.asks_due(660);
  REQUIRE(second.size() == 1);
  CHECK(second[0].peer.empty()); // broadcast
  auto third = r.asks_due(1260);
  REQUIRE(third.size() == 1);
  CHECK(third[0].peer.empty());
  CHECK(r.asks_due(1860).empty()); // given up: anti-entropy brings it
  CHECK_FALSE(r.asking("t"));
}

TEST_CASE("unknown resolver: the defaults ask the witnesses in turn twice, "
          "a short window each, then everyone twice",
          "[unknown]") {
  resolver_config cfg; // 4 tries, the first 2 to witnesses
  cfg.ask_delay_ms = 0;
  unknown_resolver r(cfg);
  auto first = r.unknown("t", "b", 0);
  REQUIRE(first);
  CHECK(first->peer == "b");
  r.unknown("t", "c", 5);  // a second node names it
  r.unknown("t", "b", 6);  // the first again: not a new witness
  r.unknown("t", "", 7);   // a message with no witness adds none
  // A witness answers at once: it is asked again sooner than everyone.
  auto ww = cfg.witness_window_ms;
  auto rw = cfg.resolve_window_ms;
  CHECK(r.asks_due(ww - 1).empty());
  auto second = r.asks_due(ww);
  REQUIRE(second.size() == 1);
  CHECK(second[0].peer == "c");
  CHECK(r.asks_due(2 * ww - 1).empty());
  auto third = r.asks_due(2 * ww);
  REQUIRE(third.size() == 1);
  CHECK(third[0].peer.empty()); // broadcast
  CHECK(r.asks_due(2 * ww + rw - 1).empty());
  auto fourth = r.asks_due(2 * ww + rw);
  REQUIRE(fourth.size() == 1);
  CHECK(fourth[0].peer.empty());
  CHECK(r.asks_due(2 * ww + 2 * rw).empty()); // given up
  CHECK_FALSE(r.asking("t"));

  // One witness only: asked twice, then everyone. With more witness tries
  // than witnesses they take turns.
  auto w = rw; // a step past either window
  unknown_resolver one(cfg);
  std::vector<std::string> peers{one.unknown("u", "b", 0)->peer};
  for (int i = 1; i <= 4; ++i)
    for (const auto& a : one.asks_due(i * w))
      peers.push_back(a.peer);
  CHECK(peers == std::vector<std::string>{"b", "b", "", ""});
  cfg.witness_tries = 3;
  unknown_resolver turns(cfg);
  peers = {turns.unknown("v", "b", 0)->peer};
  turns.unknown("v", "c", 1);
  for (int i = 1; i <= 4; ++i)
    for (const auto& a : turns.asks_due(i * w))
      peers.push_back(a.peer);
  CHECK(peers == std::vector<std::string>{"b", "c", "b", ""});
}

TEST_CASE("unknown resolver: beyond 64 live nodes each doubling adds a "
          "question to the witnesses before the same two broadcasts, unless "
          "the tries are fixed",
          "[unknown]") {
  CHECK(unknown_resolver::extra_witness_tries(1) == 0);
  CHECK(unknown_resolver::extra_witness_tries(64) == 0);
  CHECK(unknown_resolver::extra_witness_tries(65) == 1);
  CHECK(unknown_resolver::extra_witness_tries(128) == 1);
  CHECK(unknown_resolver::extra_witness_tries(129) == 2);
  CHECK(unknown_resolver::extra_witness_tries(256) == 2);
  CHECK(unknown_resolver::extra_witness_tries(1024) == 4);

  // The questions about one task, one each time a window passed, after
  // the live cluster had each size in `sizes`, in turn.
  auto schedule = [](resolver_config cfg, std::vector<std::size_t> sizes) {
    cfg.ask_delay_ms = 0;
    unknown_resolver r(cfg);
    for (auto n : sizes)
      r.cluster_size(n);
    std::vector<std::string> peers{r.unknown("t", "b", 0)->peer};
    for (int i = 1; i <= 10; ++i)
      for (const auto& a : r.asks_due(i * cfg.resolve_window_ms))
        peers.push_back(a.peer);
    return peers;
  };
  resolver_config cfg; // 2 witness tries, 4 in all
  using list = std::vector<std::string>;
  CHECK(schedule(cfg, {64}) == list{"b", "b", "", ""});
  CHECK(schedule(cfg, {100}) == list{"b", "b", "b", "", ""});
  CHECK(schedule(cfg, {256}) == list{"b", "b", "b", "b", "", ""});
  // A cluster that shrinks back asks as a small one again.
  CHECK(schedule(cfg, {300, 40}) == list{"b", "b", "", ""});
  cfg.scale_witness_tries = false;
  CHECK(schedule(cfg, {256}) == list{"b", "b", "", ""});
}

TEST_CASE("unknown resolver: with no witness the question is broadcast, and a "
          "witness heard before the first question is asked",
          "[unknown]") {
  unknown_resolver r(asking());
  r.unknown("t", "", 0);
  r.unknown("u", "", 0);
  r.unknown("u", "c", 10); // a later message names who holds it
  auto due = r.asks_due(60);
  REQUIRE(due.size() == 2);
  CHECK(due[0].task_id == "t");
  CHECK(due[0].peer.empty());
  CHECK(due[1].task_id == "u");
  CHECK(due[1].peer == "c");
}

TEST_CASE("unknown resolver: without an ask delay the first question leaves "
          "at once, and an answer or the spec ends the asking",
          "[unknown]") {
  auto cfg = asking();
  cfg.ask_delay_ms = 0;
  unknown_resolver r(cfg);
  auto now = r.unknown("t", "b", 0);
  REQUIRE(now);
  CHECK(now->peer == "b");
  CHECK_FALSE(r.unknown("t", "b", 5)); // asked already
  r.answer_seen("t");
  CHECK_FALSE(r.asking("t"));
  r.unknown("u", "b", 0);
  r.resolved("u");
  CHECK(r.asks_due(10'000).empty());
  CHECK(r.idle());
}

TEST_CASE("unknown resolver: never_want asks nothing", "[unknown]") {
  auto cfg = asking();
  cfg.strategy = resolve_strategy::never_want;
  unknown_resolver r(cfg);
  CHECK_FALSE(r.unknown("t", "b", 0));
  CHECK(r.asks_due(10'000).empty());
}

TEST_CASE("unknown resolver: a broadcast question is answered after a "
          "back-off unless another answer is heard first",
          "[unknown]") {
  unknown_resolver r(asking());
  std::mt19937_64 rng(7);
  r.asked("t", 0, rng);
  r.asked("u", 0, rng);
  r.answer_seen("u");
  CHECK(r.answers_suppressed() == 1);
  auto due = r.answers_due(250);
  REQUIRE(due.size() == 1);
  CHECK(due[0] == "t");
}
