#include <catch2/catch.hpp>

#include <thread>

#include "embed/event_hub.hpp"

using namespace dice::embed;

namespace {

task_event event(const std::string& id, const std::string& state) {
  task_event ev;
  ev.id = id;
  ev.state = state;
  return ev;
}

} // namespace

TEST_CASE("await sees an end published before or while it waits", "[embed]") {
  event_hub hub;
  std::vector<std::string> seen;
  hub.on_event([&](const task_event& ev) { seen.push_back(ev.id + ":" + ev.state); });
  hub.publish(event("t1", "running"));
  hub.publish(event("t1", "done"));
  auto got = hub.await("t1", std::chrono::milliseconds(0));
  REQUIRE(got);
  CHECK(got->state == "done");
  CHECK(seen == std::vector<std::string>{"t1:running", "t1:done"});
  // Not ended: await gives up after its timeout.
  hub.publish(event("t2", "ready"));
  CHECK_FALSE(hub.await("t2", std::chrono::milliseconds(1)));
  std::thread later([&] { hub.publish(event("t2", "failed")); });
  auto t2 = hub.await("t2", std::chrono::seconds(30));
  later.join();
  REQUIRE(t2);
  CHECK(t2->state == "failed");
}

TEST_CASE("the hub remembers a bounded number of ends", "[embed]") {
  event_hub hub(2);
  hub.publish(event("a", "done"));
  hub.publish(event("b", "done"));
  hub.publish(event("b", "removed")); // a later end of b replaces it
  hub.publish(event("c", "canceled"));
  CHECK(hub.remembered() == 2);
  CHECK_FALSE(hub.await("a", std::chrono::milliseconds(0)));
  CHECK(hub.await("b", std::chrono::milliseconds(0))->state == "removed");
  CHECK(hub.await("c", std::chrono::milliseconds(0))->state == "canceled");
}
