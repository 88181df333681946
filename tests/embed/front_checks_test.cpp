#include <catch2/catch.hpp>

#include <variant>

#include "embed/event_of.hpp"
#include "embed/front_checks.hpp"
#include "known_tasks/task_policy.hpp"

using namespace dice;
using namespace dice::embed;

namespace {

std::optional<problem> refused(const task& t) {
  auto out = task_spec_of(t, 1'000'000);
  if (auto* p = std::get_if<problem>(&out))
    return *p;
  return std::nullopt;
}

} // namespace

TEST_CASE("a task the node cannot take is refused with its reason", "[embed]") {
  // An unknown kind is the front's refusal (front_actor_test).
  auto big = refused({"upper", std::string(40'000, 'x')});
  REQUIRE(big);
  CHECK(big->code == refusal::oversize);
  CHECK(big->reason == "payload of 40000 bytes exceeds the limit of 32768");
  task bad_lock{"upper", "x"};
  bad_lock.locks = {"has space"};
  REQUIRE(refused(bad_lock));
  CHECK(refused(bad_lock)->code == refusal::invalid);
  task bad_policy{"upper", "x"};
  bad_policy.max_attempts = 1000;
  REQUIRE(refused(bad_policy));
  CHECK(refused(bad_policy)->code == refusal::invalid);
}

TEST_CASE("a task becomes the spec the queue takes: a key names its id", "[embed]") {
  task t{"upper", "hi", 3, {{"n1", 2}}, {"ledger"}};
  t.key = "order-17";
  auto out = task_spec_of(t, 1'000'000);
  REQUIRE(std::holds_alternative<wire::TaskSpec>(out));
  auto& spec = std::get<wire::TaskSpec>(out);
  CHECK(spec.kind() == "upper");
  CHECK(spec.payload() == "hi");
  CHECK(spec.priority() == 3);
  CHECK(spec.locks_size() == 1);
  REQUIRE(spec.data_objects_size() == 1);
  CHECK(spec.data_objects(0).node_id() == "n1");
  CHECK(spec.id() == keyed_task_id("order-17"));
  t.key.clear();
  CHECK(std::get<wire::TaskSpec>(task_spec_of(t, 1'000'000)).id().empty());
}

TEST_CASE("a bad topic or oversize data is not published", "[embed]") {
  CHECK_FALSE(publish_problem("greetings", "hello"));
  REQUIRE(publish_problem("no spaces", "x"));
  CHECK(publish_problem("no spaces", "x")->code == refusal::invalid);
  REQUIRE(publish_problem("t", std::string(17 * 1024, 'x')));
  CHECK(publish_problem("t", std::string(17 * 1024, 'x'))->reason == "data over 16 KiB");
}

TEST_CASE("a replica's row reads as a task event", "[embed]") {
  task_row r;
  r.has_spec = true;
  r.spec.set_id("t1");
  r.spec.set_kind("upper");
  r.spec.set_enqueue_time_ms(42);
  r.state.set_phase(wire::DONE);
  r.state.set_attempt(1);
  r.state.set_result("HI");
  r.state.mutable_claim()->set_node_id("n2");
  auto ev = task_event_of(r);
  CHECK(ev.id == "t1");
  CHECK(ev.state == "done");
  CHECK(ev.ended());
  CHECK(ev.result == "HI");
  CHECK(ev.node == "n2");
  CHECK(ev.ready_at_ms == 42); // the first attempt became ready when enqueued
}
