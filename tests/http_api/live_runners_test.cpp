// What the routes that take tasks refuse for want of a runner, and when
// they cannot know yet.
#include <catch2/catch.hpp>

#include "http_api/live_runners.hpp"

using namespace dice;

namespace {

wire::TaskSpec shell_task(const std::string& program) {
  wire::TaskSpec t;
  t.set_kind("shell");
  t.set_payload("[\"" + program + "\"]");
  return t;
}

runner_capabilities runs(std::vector<std::string> kinds, std::vector<std::string> allow = {}) {
  return {std::move(kinds), std::move(allow)};
}

} // namespace

TEST_CASE("live runners: the kinds and programs the heard members run, and no other") {
  live_runners r{{runs({"echo", "sleep"}), runs({"echo", "shell"}, {"/bin/false"})}};
  CHECK(r.kinds() == std::vector<std::string>{"echo", "shell", "sleep"});
  CHECK(r.problem(shell_task("/bin/false")).empty());
  auto why = r.problem(shell_task("/bin/rm"));
  CHECK(why.find("no live member allows '/bin/rm'") != std::string::npos);
}

TEST_CASE("live runners: a live member not heard yet may run anything, so nothing is refused") {
  // The membership view has two live members; the queue has heard one.
  live_runners r{{runs({"echo"})}, false, 1};
  CHECK(r.kinds().empty()); // any kind
  CHECK(r.problem(shell_task("/bin/false")).empty());
  r.unheard = 0; // its heartbeat arrived, advertising nothing runs it
  CHECK(r.kinds() == std::vector<std::string>{"echo"});
  CHECK_FALSE(r.problem(shell_task("/bin/false")).empty());
}

TEST_CASE("live runners: a member heard before its queue said what it runs may run anything") {
  live_runners r{{runs({"echo"}), runs({})}};
  CHECK(r.kinds().empty());
  CHECK(r.problem(shell_task("/bin/false")).empty());
  r.nodes.back() = runs({"sleep"});
  CHECK(r.kinds() == std::vector<std::string>{"echo", "sleep"});
  CHECK_FALSE(r.problem(shell_task("/bin/false")).empty());
}

TEST_CASE("live runners: with --wait-for-runner any task may wait") {
  live_runners r{{runs({"echo"})}, true};
  CHECK(r.kinds().empty());
  CHECK(r.problem(shell_task("/bin/false")).empty());
}
