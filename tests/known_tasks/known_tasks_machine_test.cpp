#include <catch2/catch.hpp>

#include <variant>

#include "common/emitted_events.hpp"
#include "communication/communication.hpp"
#include "known_tasks/known_tasks_machine.hpp"

using namespace dice;

namespace {

wire::Claim claim_of(const std::string& node, millis dequeue_time) {
  wire::Claim c;
  c.set_node_id(node);
  c.set_dequeue_time_ms(dequeue_time);
  return c;
}

std::size_t count_claims_heard(const ev::events& out) {
  return test::emitted<ev::claim_heard>(out).size();
}

} // namespace

TEST_CASE("our own claim is always answered with where it stands: by the "
          "change it made, or, if a better claim was merged first, by "
          "claim_heard",
          "[known_tasks]") {
  known_tasks_machine k("a", queue_config{});
  wire::TaskSpec spec;
  spec.set_id("t");
  spec.set_enqueuer("a");
  ev::events out;
  REQUIRE(k.submit(spec, 0, out));
  wire::OpId none;
  auto mine = make_dequeue("t", 1, claim_of("a", 10), none);
  auto better = make_dequeue("t", 1, claim_of("b", 5), none);
  SECTION("ours changes the task: task_changed names it") {
    out.clear();
    k.on(ev::merge_message{mine, false}, 10, out);
    CHECK(count_claims_heard(out) == 0);
    bool named = false;
    for (const auto& e : out)
      if (auto c = std::get_if<ev::task_changed>(&e))
        named = c->state.claim().node_id() == "a";
    CHECK(named);
  }
  SECTION("a better claim came first: ours changes nothing, claim_heard "
          "carries the better one") {
    k.on(ev::merge_message{better, true}, 8, out);
    out.clear();
    k.on(ev::merge_message{mine, false}, 10, out);
    REQUIRE(count_claims_heard(out) == 1);
    for (const auto& e : out) {
      CHECK_FALSE(std::holds_alternative<ev::task_changed>(e));
      if (auto h = std::get_if<ev::claim_heard>(&e))
        CHECK(h->state.claim().node_id() == "b");
    }
  }
}
