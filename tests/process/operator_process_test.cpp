// What an operator reaches for: cancel or remove many tasks at once (by
// filter or ids, counted first with a dry run), and run a failed task again.
#include <fstream>

#include <httplib.h>

#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;

namespace {

std::size_t in_state(node_process& n, const std::string& state) {
  auto s = n.stats();
  return s ? (*s)["tasks"][state].get<std::size_t>() : 0;
}

} // namespace

TEST_CASE("bulk cancel and remove by filter or ids, with a dry run, and "
          "dice retry of a failed task", "[process][cli]") {
  cluster c;
  auto spec = c.make_spec("op-1");
  spec.extra_args = {"--slots", "1", "--prefetch", "0"};
  auto& n = c.start(spec);
  auto ids = c.dir().file("ids");
  REQUIRE(dice_cli(c, n, {"submit", "sleep", "60000", "--count", "6",
                          "--ids-file", ids}, "submit.log").code == 0);
  // One runs, five wait.
  REQUIRE(wait_until([&] { return in_state(n, "running") == 1; }, millis(10000)));
  REQUIRE(in_state(n, "ready") == 5);

  auto dry = dice_cli(c, n, {"cancel", "--state", "ready", "--dry-run"}, "dry.log");
  INFO(dry.output);
  CHECK(dry.code == 0);
  CHECK_THAT(dry.output, Contains("5 task(s) would be canceled (dry run)"));
  CHECK(in_state(n, "ready") == 5); // a dry run changes nothing

  auto bulk = dice_cli(c, n, {"cancel", "--state", "ready", "--kind", "sleep"},
                       "bulk.log");
  INFO(bulk.output);
  CHECK(bulk.code == 0);
  CHECK_THAT(bulk.output, Contains("5 task(s) canceled of 5 matched"));
  CHECK(in_state(n, "ready") == 0);
  CHECK(in_state(n, "canceled") == 5);

  // By ids: the file's six, of which only the running one can still be
  // canceled.
  std::vector<std::string> all;
  std::ifstream in(ids);
  for (std::string id; std::getline(in, id);)
    all.push_back(id);
  REQUIRE(all.size() == 6);
  std::vector<std::string> by_ids{"cancel"};
  by_ids.insert(by_ids.end(), all.begin(), all.end());
  auto listed = dice_cli(c, n, by_ids, "ids.log");
  INFO(listed.output);
  CHECK_THAT(listed.output, Contains("1 task(s) canceled of 1 matched"));
  CHECK(wait_until([&] { return in_state(n, "canceled") == 6; }, millis(5000)));

  // No filter at all is refused, by the CLI and by the API.
  CHECK(dice_cli(c, n, {"remove"}, "none.log").code == 2);
  CHECK(dice_cli(c, n, {"remove", "--dry-run"}, "none2.log").code == 2);

  auto removed = dice_cli(c, n, {"remove", "--state", "canceled"}, "remove.log");
  INFO(removed.output);
  CHECK_THAT(removed.output, Contains("6 task(s) removed of 6 matched"));
  CHECK(in_state(n, "removed") == 6);

  // A task that failed (its time limit) runs again as a new task.
  auto failed = dice_cli(c, n, {"submit", "sleep", "3000", "--time-limit", "100ms",
                                "--retries", "0", "--wait", "--timeout", "30"},
                         "failed.log");
  INFO(failed.output);
  REQUIRE(failed.code == 1);
  auto first_id = failed.output.substr(0, failed.output.find('\n'));
  auto again = dice_cli(c, n, {"retry", first_id}, "retry.log");
  INFO(again.output);
  REQUIRE(again.code == 0);
  auto new_id = again.output.substr(0, again.output.find('\n'));
  CHECK(new_id != first_id);
  auto copy = get_json(n.spec().http_port, "/tasks/" + new_id);
  REQUIRE(copy);
  CHECK((*copy)["kind"] == "sleep");
  CHECK((*copy)["payload"] == "3000");
  CHECK((*copy)["time_limit_ms"] == 100);
  // A done task is not retried.
  auto done = dice_cli(c, n, {"submit", "echo", "hi", "--wait"}, "done.log");
  REQUIRE(done.code == 0);
  auto done_id = done.output.substr(0, done.output.find('\n'));
  auto refused = dice_cli(c, n, {"retry", done_id}, "refused.log");
  INFO(refused.output);
  CHECK(refused.code == 1);
  CHECK_THAT(refused.output, Contains("is done: only a failed"));
}

TEST_CASE("tasks claimed ahead of a free slot are counted apart from those "
          "running, in the API, the CLI and the metrics", "[process][cli]") {
  cluster c;
  auto spec = c.make_spec("ahead-1");
  spec.extra_args = {"--slots", "2", "--prefetch", "2"};
  auto& n = c.start(spec);
  auto ids = c.dir().file("ids");
  REQUIRE(dice_cli(c, n, {"submit", "sleep", "60000", "--count", "6",
                          "--ids-file", ids}, "submit.log").code == 0);
  // Two run in the slots, two wait claimed ahead (the prefetch), two are
  // ready: before, all four held by the node counted as running.
  REQUIRE(wait_until([&] {
    return in_state(n, "running") == 2 && in_state(n, "claimed") == 2;
  }, millis(10000)));
  CHECK(in_state(n, "ready") == 2);

  auto port = n.spec().http_port;
  auto claimed = get_json(port, "/tasks?state=claimed");
  auto running = get_json(port, "/tasks?state=running");
  REQUIRE(claimed);
  REQUIRE(running);
  REQUIRE((*claimed)["tasks"].size() == 2);
  REQUIRE((*running)["tasks"].size() == 2);
  for (const auto& t : (*claimed)["tasks"]) {
    CHECK(t["node"] == n.id());
    CHECK(t["started_at_ms"].is_null());
  }
  for (const auto& t : (*running)["tasks"])
    CHECK(t["started_at_ms"].is_number());

  auto one = (*claimed)["tasks"][0]["id"].get<std::string>();
  auto status = dice_cli(c, n, {"status", one}, "status.log");
  INFO(status.output);
  CHECK_THAT(status.output, Contains("claimed"));

  auto metrics = http_get(port, "/metrics", millis(3000));
  CHECK_THAT(metrics.body, Contains("dice_tasks{state=\"claimed\"} 2"));
  CHECK_THAT(metrics.body, Contains("dice_tasks{state=\"running\"} 2"));

  // The progress line of a wait says the same.
  auto wait = dice_cli(c, n, {"wait", "--ids-file", ids, "--timeout", "1"}, "wait.log");
  INFO(wait.output);
  CHECK_THAT(wait.output, Contains("2 running, 2 claimed"));
}

TEST_CASE("dice drain: a node claims nothing new and finishes what it holds, "
          "dice undrain: it claims again, --leave: it stops once drained",
          "[process][cli]") {
  cluster c;
  auto first = c.make_spec("dr-1");
  first.extra_args = {"--slots", "1", "--prefetch", "0"};
  auto& d1 = c.start(first);
  auto second = c.make_spec("dr-2");
  second.peers = {d1.spec().udp_addr()};
  second.extra_args = {"--slots", "2", "--prefetch", "0"};
  auto& d2 = c.start(second);
  REQUIRE(wait_until([&] { return d1.alive_count() == 2 && d2.alive_count() == 2; },
                     millis(5000)));
  auto held_by = [&](const std::string& node) {
    auto t = get_json(d2.spec().http_port, "/tasks?state=running&node=" + node);
    return t ? (*t)["tasks"].size() : 0;
  };
  // dr-1 runs one of three long tasks.
  REQUIRE(dice_cli(c, d2, {"submit", "sleep", "1500", "--count", "3"}, "long.log").code == 0);
  REQUIRE(wait_until([&] { return held_by("dr-1") == 1; }, millis(10000)));

  // Drained through dr-2's API, by id: the CLI returns once dr-1's task
  // ended, and dr-1 took nothing new meanwhile.
  auto drain = dice_cli(c, d2, {"drain", "dr-1", "--wait"}, "drain.log");
  INFO(drain.output);
  CHECK(drain.code == 0);
  CHECK_THAT(drain.output, Contains("drained: it holds no task"));
  auto s1 = d1.stats();
  REQUIRE(s1);
  CHECK((*s1)["draining"]["on"] == true);
  CHECK((*s1)["draining"]["held"] == 0);
  auto ids = c.dir().file("while-drained");
  REQUIRE(dice_cli(c, d2, {"submit", "sleep", "100", "--count", "8", "--ids-file", ids,
                           "--wait", "--timeout", "60"}, "during.log").code == 0);
  std::ifstream in(ids);
  std::string id;
  std::size_t checked = 0;
  while (std::getline(in, id)) {
    auto t = get_json(d2.spec().http_port, "/tasks/" + id);
    REQUIRE(t);
    CHECK((*t)["node"] == "dr-2");
    ++checked;
  }
  CHECK(checked == 8);

  // Undrained: it claims again.
  REQUIRE(dice_cli(c, d2, {"undrain", "dr-1"}, "undrain.log").code == 0);
  REQUIRE(dice_cli(c, d2, {"submit", "sleep", "1500", "--count", "3"}, "again.log").code == 0);
  REQUIRE(wait_until([&] { return held_by("dr-1") == 1; }, millis(10000)));

  // --leave: once its task ends, dr-1 stops by itself, as on SIGTERM.
  auto leave = dice_cli(c, d1, {"drain", "--leave", "--wait"}, "leave.log");
  INFO(leave.output);
  CHECK(leave.code == 0);
  CHECK_THAT(leave.output, Contains("drained and stopped"));
  auto code = d1.proc().wait_exit(millis(10000));
  REQUIRE(code);
  CHECK(*code == 0);
  // Nothing it held was lost: every task is done.
  REQUIRE(wait_until([&] {
    auto s = d2.stats();
    return s && (*s)["tasks"]["done"] == 14;
  }, millis(20000)));
}

TEST_CASE("dice drain names what it cannot do", "[process][cli]") {
  cluster c;
  auto& n = c.start(c.make_spec("dn-1"));
  auto unknown = dice_cli(c, n, {"drain", "nobody"}, "unknown.log");
  CHECK(unknown.code == 1);
  CHECK_THAT(unknown.output, Contains("no member nobody known to"));
  auto extra = dice_cli(c, n, {"drain", "a", "b"}, "extra.log");
  CHECK(extra.code == 2);
  CHECK_THAT(extra.output, Contains("usage: dice drain"));
  httplib::Client http("127.0.0.1", n.spec().http_port);
  auto bad = http.Post("/drain", "{\"leave\": 3}", "application/json");
  REQUIRE(bad);
  CHECK(bad->status == 400);
  CHECK_THAT(bad->body, Contains("leave"));
}
