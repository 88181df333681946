#include <catch2/catch.hpp>

#include "common/defaults.hpp"
#include "simulation/lockstep.hpp"

using namespace dice;
using namespace dice::test;

// A newcomer to a large queue whose ops left the op log learns it by state
// transfer: the snapshot must arrive in datagram-sized chunks (a bigger
// datagram is dropped by the bridge), and a lost chunk must not restart it.
TEST_CASE("a large replica is transferred in datagram-sized chunks that "
          "survive loss",
          "[queue]") {
  queue_config cfg;
  cfg.op_log_limit = 16; // the newcomer's ops are long gone
  lockstep net;
  net.task_ms = 100'000'000; // executions never end: states stay put
  net.add("a", cfg);
  net.add("b", cfg);
  net.down = {"b"};
  constexpr int tasks = 3000;
  for (int i = 0; i < tasks; ++i) {
    auto s = spec_of("t" + std::to_string(100000 + i));
    s.set_payload(std::string(200, 'x'));
    REQUIRE(net.at("a").submit(s, net.now));
  }
  net.flush();
  REQUIRE(net.at("a").log().size() <= 16);

  std::size_t largest = 0, replies = 0, dropped = 0;
  net.drop = [&](const std::string&, const std::string& to,
                 const wire::Message& m) {
    if (!m.has_sync_reply())
      return false;
    largest = std::max(largest, m.ByteSizeLong());
    // Every third reply to the newcomer is lost.
    if (to == "b" && ++replies % 3 == 0) {
      ++dropped;
      return true;
    }
    return false;
  };
  net.down.clear();
  net.versions_every_ms = 200;
  net.run_for(20'000, 5);

  auto& a = net.at("a");
  auto& b = net.at("b");
  CHECK(dropped > 0);
  CHECK(replies > 3); // it took several chunks
  CHECK(largest <= defaults::max_datagram_bytes - 1024);
  REQUIRE(b.replica().size() == tasks);
  CHECK(b.replica().same_as(a.replica()));
  CHECK_FALSE(b.seen().behind(a.seen()));
  CHECK(b.counters().snapshots_applied >= 1);
  const auto* t = b.replica().find("t100042");
  REQUIRE(t != nullptr);
  CHECK(t->spec.payload() == std::string(200, 'x'));
}
