#include <catch2/catch.hpp>

#include "format.hpp"

using namespace dice::cli;

TEST_CASE("progress: failed tasks are not done, no rate over less than a "
          "second, no ETA before a task ended", "[cli]") {
  tally t;
  t.running = 2;
  t.running_on = {{"b", 2}};
  // Nothing ended yet: no rate, no ETA (was "ETA 0s").
  CHECK(progress_text(t, 10, 5.0, false) == "0/10 ended (0 done), 2 running; per node: b:0+2");
  t.done = 6;
  t.failed = 2;
  t.done_on = {{"b", 4}, {"c", 2}};
  t.running_on.clear();
  t.running = 0;
  // A batch that ended within a blink: no 54054054/s.
  CHECK(progress_text(t, 8, 0.000148, false)
        == "8/8 ended (6 done, 2 failed), 0 running; per node: b:4 c:2");
  t.done = 3;
  t.failed = 1;
  t.running = 1;
  t.running_on = {{"c", 1}};
  CHECK(progress_text(t, 8, 2.0, false)
        == "4/8 ended (3 done, 1 failed), 1 running, 2.0/s, ETA 2s; per node: b:4 c:2+1");
  CHECK(progress_text(t, 8, 2.0, true).rfind("[###############...............] 4/8", 0) == 0);
}

TEST_CASE("tables: ids in numeric order, a page says how to go on", "[cli]") {
  nlohmann::json body{{"tasks",
                       {{{"id", "a-10"}, {"kind", "echo"}, {"state", "done"}, {"node", "b"}, {"attempts", 1}},
                        {{"id", "a-2"}, {"kind", "echo"}, {"state", "ready"}, {"node", nullptr}, {"attempts", 0}}}},
                      {"next_after", "a-10"}};
  auto text = tasks_table(body);
  CHECK(text.find("a-2 ") < text.find("a-10 "));
  CHECK(text.find("(more: --after a-10)") != std::string::npos);
  auto results = results_table(
    {{{"id", "a-10"}, {"state", "done"}, {"result", "42"}},
     {{"id", "a-9"}, {"state", "failed"}, {"reason", "exit status 1"}}});
  CHECK(results.find("a-9") < results.find("a-10"));
  CHECK(results.find("failed    exit status 1\n") != std::string::npos);
}

TEST_CASE("stats and a task as text", "[cli]") {
  nlohmann::json stats{{"id", "n1"},
                       {"tasks", {{"done", 3}, {"ready", 1}}},
                       {"wire", {{"dropped_by_reason", {{"replayed", 2}}}}}};
  auto text = stats_text(stats);
  CHECK(text.rfind("node n1\ntasks\n", 0) == 0);
  CHECK(text.find("\n  done                       3\n") != std::string::npos);
  CHECK(text.find("\n  dropped_by_reason\n    replayed                   2\n")
        != std::string::npos);
  auto task = task_text({{"id", "a-1"}, {"state", "done"}, {"result", "ok"},
                         {"finished_at_ms", 1764000000123LL}, {"node", nullptr}});
  CHECK(task.rfind("id:        a-1\nstate:     done\nnode:      -\n", 0) == 0);
  CHECK(task.find("finished:  2025-11-24 16:00:00.123 UTC\n") != std::string::npos);
  // The result comes last, however long it is.
  CHECK(task.substr(task.size() - 14) == "result:    ok\n");
}
