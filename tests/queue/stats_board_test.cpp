// The stats board's copy of what the cluster runs, which every submit
// reads instead of asking the queue.
#include <catch2/catch.hpp>

#include "queue/stats_board.hpp"

using namespace dice;

namespace {

runner_capabilities runs(std::vector<std::string> kinds) {
  runner_capabilities r;
  r.kinds = std::move(kinds);
  return r;
}

} // namespace

TEST_CASE("the board lists this node's runner first, then its live peers' as "
          "communication last posted them",
          "[stats_board]") {
  stats_board b;
  // Before anything is posted: this node alone, advertising nothing, which
  // counts as running every kind.
  REQUIRE(b.runners().size() == 1);
  CHECK_FALSE(b.runners().front().advertised());
  b.post_own(runs({"echo"}));
  b.post_peers({runs({"shell"}), runs({"resize"})});
  CHECK(kinds_run(b.runners()) == std::vector<std::string>{"echo", "resize", "shell"});
  CHECK(b.runners().front() == runs({"echo"}));
  // A peer dies: the next post replaces the list whole.
  b.post_peers({runs({"resize"})});
  CHECK(kinds_run(b.runners()) == std::vector<std::string>{"echo", "resize"});
  // A worker serves a kind here now.
  b.post_own(runs({"echo", "thumb"}));
  CHECK(kinds_run(b.runners()) == std::vector<std::string>{"echo", "resize", "thumb"});
}
