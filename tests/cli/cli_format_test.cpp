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
  t.claimed = 3;
  CHECK(progress_text(t, 10, 5.0, false)
        == "0/10 ended (0 done), 2 running, 3 claimed; per node: b:0+2");
  t.claimed = 0;
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

TEST_CASE("progress in an 80-column terminal: the line stays within 79 "
          "columns, the bar shrinks and the nodes that do not fit become ...",
          "[cli]") {
  tally t;
  t.done = 10;
  t.failed = 2;
  t.running = 6;
  for (auto n : {"node-a", "node-b", "node-c", "node-d", "node-e", "node-f"}) {
    t.done_on[n] = 2;
    t.running_on[n] = 1;
  }
  auto wide = progress_text(t, 64, 3.1, true);
  REQUIRE(wide.size() > 80); // what wrapped before
  auto line = progress_text(t, 64, 3.1, true, 80);
  CAPTURE(line);
  CHECK(line.size() <= 79);
  // A bar of 10 and the counts; no node fits.
  CHECK(line.rfind("[#.........] 12/64 ended (10 done, 2 failed), 6 running", 0) == 0);
  CHECK(line.find("per node") == std::string::npos);
  // 110 columns: the nodes that fit, then "...".
  auto wider = progress_text(t, 64, 3.1, true, 110);
  CAPTURE(wider);
  CHECK(wider.size() <= 109);
  CHECK(wider.find("; per node: node-a:2+1 node-b:2+1") != std::string::npos);
  CHECK(wider.substr(wider.size() - 4) == " ...");
  // Wide enough: everything, as without a width.
  CHECK(progress_text(t, 64, 3.1, true, 400) == wide);
  // Long counts: the bar shrinks to what is left, the line still fits.
  t.done = 12340;
  auto big = progress_text(t, 100000, 12.0, true, 80);
  CAPTURE(big);
  CHECK(big.size() <= 79);
  CHECK(big.rfind("[", 0) == 0);
  CHECK(big.find("12342/100000 ended") != std::string::npos);
  // A very narrow terminal still gets a line that does not wrap.
  CHECK(progress_text(t, 64, 3.1, true, 20).size() <= 19);
}

TEST_CASE("dice status: a task nobody claimed says so instead of a bare -",
          "[cli]") {
  nlohmann::json canceled{{"id", "a-1"}, {"state", "canceled"}, {"node", nullptr}};
  CHECK(task_text(canceled).find("node:      - (never claimed)\n") != std::string::npos);
  nlohmann::json ready{{"id", "a-2"}, {"state", "ready"}, {"node", nullptr}};
  CHECK(task_text(ready).find("node:      - (not claimed yet)\n") != std::string::npos);
  nlohmann::json ran{{"id", "a-3"}, {"state", "done"}, {"node", "b"}};
  CHECK(task_text(ran).find("node:      b\n") != std::string::npos);
}

TEST_CASE("dice tasks: columns stay apart whatever the ids' length",
          "[cli]") {
  auto body = nlohmann::json::parse(R"({"tasks": [
    {"id": "key-0bb6bf4c4e7778ca0777c7a9", "kind": "shell", "state": "done",
     "node": "y1", "attempts": 1},
    {"id": "a-2", "kind": "echo", "state": "ready", "node": null, "attempts": 1}],
    "next_after": "key-0bb6bf4c4e7778ca0777c7a9"})");
  auto table = dice::cli::tasks_table(body);
  CHECK(table ==
        "ID                            KIND   STATE  NODE  ATTEMPTS\n"
        "a-2                           echo   ready  -     1\n"
        "key-0bb6bf4c4e7778ca0777c7a9  shell  done   y1    1\n"
        "(more: --after key-0bb6bf4c4e7778ca0777c7a9)\n");
  auto results = dice::cli::results_table(nlohmann::json::parse(R"([
    {"id": "key-0bb6bf4c4e7778ca0777c7a9", "state": "done", "result": "alpha"},
    {"id": "a-10", "state": "failed", "reason": "exit 1"}])"));
  CHECK(results == "a-10                          failed  exit 1\n"
                   "key-0bb6bf4c4e7778ca0777c7a9  done    alpha\n");
}
