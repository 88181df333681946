#include <catch2/catch.hpp>

#include <memory>
#include <variant>

#include "communication/communication.hpp"
#include "ranking/ranking_machine.hpp"

using namespace dice;

namespace {

std::size_t wants(const ev::events& out) {
  std::size_t n = 0;
  for (const auto& e : out)
    n += std::holds_alternative<ev::want_tasks>(e) ? 1 : 0;
  return n;
}

} // namespace

TEST_CASE("an idle node asks for tasks only after a change or when "
          "ready_queue says, so a quiet node has no tick due",
          "[ranking]") {
  ranking_machine r("a", queue_config{});
  ev::events out;
  r.tick(0, out);
  CHECK(wants(out) == 1); // a free slot asks at once
  out.clear();
  r.tick(10, out);
  CHECK(wants(out) == 0); // asked already
  SECTION("nothing ready: no tick due until a task changes") {
    r.on(ev::offer_later{}, 10, out);
    CHECK_FALSE(r.next_due());
    r.tick(500, out);
    CHECK(wants(out) == 0);
    auto spec = std::make_shared<wire::TaskSpec>();
    spec->set_id("t");
    r.on(ev::task_changed{"t", spec, ready_state(1)}, 600, out);
    REQUIRE(r.next_due());
    CHECK(*r.next_due() == 600);
    r.tick(610, out);
    CHECK(wants(out) == 1);
  }
  SECTION("a claim whose turn comes later: asked again at that time") {
    r.on(ev::offer_later{millis{120}}, 10, out);
    REQUIRE(r.next_due());
    CHECK(*r.next_due() == 120);
    r.tick(100, out);
    CHECK(wants(out) == 0);
    r.tick(120, out);
    CHECK(wants(out) == 1);
  }
}

TEST_CASE("a claim in its window keeps a tick due at the window's end",
          "[ranking]") {
  queue_config cfg;
  ranking_machine r("a", cfg);
  ev::events out;
  r.tick(0, out);
  auto spec = std::make_shared<wire::TaskSpec>();
  spec->set_id("t");
  r.on(ev::task_offer{"t", 1, spec, 0}, 5, out);
  REQUIRE(r.pending_claims() == 1);
  REQUIRE(r.next_due());
  CHECK(*r.next_due() == 5 + cfg.claim_window_ms);
}
