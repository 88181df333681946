// What the routes that take tasks refuse for want of a runner, and when
// they cannot know yet.
#include <catch2/catch.hpp>

#include "http_api/live_runners.hpp"

using namespace dice;

namespace {

wire::TaskSpec task(const std::string& kind) {
  wire::TaskSpec t;
  t.set_kind(kind);
  return t;
}

wire::TaskSpec shell_task(const std::string& program) {
  auto t = task("shell");
  t.set_payload("[\"" + program + "\"]");
  return t;
}

runner_capabilities runs(std::vector<std::string> kinds, std::vector<std::string> allow = {}) {
  return {std::move(kinds), std::move(allow)};
}

// A membership view with `n` live members the queue has not heard, and
// how often it was asked.
struct view {
  std::size_t n = 0;
  int asked = 0;
  std::function<std::size_t()> unheard() {
    return [this] {
      ++asked;
      return n;
    };
  }
};

} // namespace

TEST_CASE("live runners: the kinds and programs the heard members run, and no other") {
  view v;
  live_runners r{{runs({"echo", "sleep"}), runs({"echo", "shell"}, {"/bin/false"})},
                 false, v.unheard()};
  CHECK(r.kinds() == std::vector<std::string>{"echo", "shell", "sleep"});
  CHECK(r.problem(shell_task("/bin/false")).empty());
  CHECK(r.problem(task("sleep")).empty());
  CHECK(v.asked == 0); // a task some heard member runs never waits for the view
  auto why = r.problem(shell_task("/bin/rm"));
  CHECK(why.find("no live member allows '/bin/rm'") != std::string::npos);
  CHECK(r.problem(task("thumb"))
        == "unknown kind 'thumb': no live member runs it (known: echo, shell, sleep)");
  CHECK(v.asked == 2); // asked before each refusal
}

TEST_CASE("live runners: a live member not heard yet may run anything, so nothing is refused") {
  // The membership view has two live members; the queue has heard one.
  view v{1};
  live_runners r{{runs({"echo"})}, false, v.unheard()};
  CHECK(r.problem(shell_task("/bin/false")).empty());
  CHECK(r.problem(task("thumb")).empty());
  v.n = 0; // its heartbeat arrived, advertising nothing runs it
  CHECK_FALSE(r.problem(shell_task("/bin/false")).empty());
  CHECK_FALSE(r.problem(task("thumb")).empty());
}

TEST_CASE("live runners: a member heard before its queue said what it runs may run anything") {
  live_runners r{{runs({"echo"}), runs({})}};
  CHECK(r.problem(shell_task("/bin/false")).empty());
  CHECK(r.problem(task("thumb")).empty());
  r.nodes.back() = runs({"sleep"});
  CHECK(r.kinds() == std::vector<std::string>{"echo", "sleep"});
  CHECK_FALSE(r.problem(shell_task("/bin/false")).empty());
}

TEST_CASE("live runners: with --wait-for-runner any task may wait") {
  live_runners r{{runs({"echo"})}, true};
  CHECK(r.problem(shell_task("/bin/false")).empty());
  CHECK(r.problem(task("thumb")).empty());
}
