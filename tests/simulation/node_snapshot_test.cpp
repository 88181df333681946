// State transfer on production nodes (actor_cluster): a newcomer to a
// large queue whose ops left the op log learns it by snapshot, in
// datagram-sized chunks (a bigger datagram is dropped by the bridge), and
// a lost chunk does not restart it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "node_cases.hpp"
#include "simulation/actor_cluster.hpp"

using namespace dice;
using namespace dice::test;

TEST_CASE("on production nodes a large replica is transferred to a newcomer "
          "in datagram-sized chunks that survive loss",
          "[sim][node][snapshot]") {
  queue_config q;
  q.op_log_limit = 16; // the newcomer's ops are long gone
  // Nobody runs the tasks: their states stay put while they travel.
  q.runner = runner_capabilities{{"echo"}, {}};
  actor_cluster c(17, {}, q);
  start_nodes(c, 1, 500);
  constexpr int tasks = 3000;
  std::vector<wire::TaskSpec> specs(tasks);
  for (auto& s : specs) {
    s.set_kind("held");
    s.set_payload(std::string(200, 'x'));
  }
  std::string error;
  auto ids = c.submit_many("n1", specs, error);
  REQUIRE(ids);
  REQUIRE(ids->size() == tasks);

  std::size_t largest = 0, replies = 0, dropped = 0;
  c.drop_messages([&](const std::string&, const std::string& to,
                      const wire::Message& m) {
    if (to != "n2" || !m.has_sync_reply())
      return false;
    largest = std::max(largest, m.sync_reply().ByteSizeLong());
    // Every third reply to the newcomer is lost.
    if (++replies % 3 == 0) {
      ++dropped;
      return true;
    }
    return false;
  });
  c.start("n2");
  c.step(20'000);

  CHECK(dropped > 0);
  CHECK(replies > 3); // it took several chunks
  CHECK(largest <= q.wire_budget); // each reply's body fits its budget
  auto rows = c.tasks_of("n2");
  REQUIRE(rows.size() == tasks);
  for (const auto& row : rows)
    CHECK(row.spec.payload() == std::string(200, 'x'));
  check_converged(c); // the same tasks in the same states as n1's
  CHECK(c.counters_of("n2").snapshots_applied >= 1);
}
