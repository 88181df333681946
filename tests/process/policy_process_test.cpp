// A task's own policy across real processes: a time limit that stops an
// execution and a retry that waits out its backoff on whichever node takes
// it, a delay, an expiry, and an idempotency key submitted at two nodes.
#include <catch2/catch.hpp>

#include <thread>

#include <httplib.h>

#include "cluster.hpp"

using namespace dice::test;

namespace {

struct posted {
  int status = 0;
  nlohmann::json body;
};

posted post_task(const node_process& n, const nlohmann::json& body) {
  httplib::Client cli("127.0.0.1", n.spec().http_port);
  cli.set_read_timeout(10);
  posted p;
  if (auto res = cli.Post("/tasks", body.dump(), "application/json")) {
    p.status = res->status;
    p.body = nlohmann::json::parse(res->body, nullptr, false);
  }
  return p;
}

nlohmann::json task_at(const node_process& n, const std::string& id) {
  auto t = get_json(n.spec().http_port, "/tasks/" + id);
  return t ? *t : nlohmann::json::object();
}

std::string state_at(const node_process& n, const std::string& id) {
  auto t = task_at(n, id);
  return t.contains("state") ? t["state"].get<std::string>() : "";
}

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// Two nodes with one slot each, formed through the first.
std::vector<node_process*> pair_of(cluster& c, const std::string& prefix) {
  std::vector<node_process*> nodes;
  for (auto& spec : seeded_specs(c, {prefix + "-1", prefix + "-2"})) {
    spec.extra_args = {"--slots", "1", "--prefetch", "0"};
    nodes.push_back(&c.start(spec));
  }
  REQUIRE(wait_until([&] { return nodes[0]->alive_count() == 2
                                  && nodes[1]->alive_count() == 2; },
                     millis(5000)));
  return nodes;
}

} // namespace

TEST_CASE("an execution past its time limit is stopped, and the retry waits "
          "out its backoff on whichever node takes it",
          "[process][policy]") {
  cluster c;
  auto nodes = pair_of(c, "tl");
  auto p = post_task(*nodes[0], {{"kind", "sleep"}, {"payload", "60000"},
                                 {"time_limit_ms", 300}, {"max_attempts", 2},
                                 {"backoff_ms", 3000}});
  INFO(p.body.dump() << "\n" << c.logs());
  REQUIRE(p.status == 201);
  auto id = p.body["ids"][0].get<std::string>();

  // The first attempt is stopped at its limit; the task waits, READY, for
  // its second attempt with the time every replica agrees on.
  nlohmann::json waiting;
  REQUIRE(wait_until([&] {
    waiting = task_at(*nodes[1], id);
    return waiting.value("state", "") == "ready" && waiting.contains("retry_at_ms");
  }, millis(10000), millis(20)));
  auto retry_at = waiting["retry_at_ms"].get<std::int64_t>();
  CHECK(waiting["attempts"] == 2);
  CHECK(retry_at >= wall_ms() + 500); // half of 3 s at least, less the poll

  // The node that ran the first attempt goes: the other one honours the
  // backoff it learnt from the replicated state.
  auto started = [](node_process& n) {
    auto s = n.stats();
    return s ? (*s)["executions"]["started"].get<int>() : -1;
  };
  auto* runner = nodes[0];
  auto* other = nodes[1];
  if (started(*nodes[1]) == 1)
    std::swap(runner, other);
  REQUIRE(started(*runner) == 1);
  REQUIRE(started(*other) == 0);
  runner->proc().kill_now();

  nlohmann::json end;
  REQUIRE(wait_until([&] {
    end = task_at(*other, id);
    return end.value("state", "") == "failed";
  }, millis(20000), millis(50)));
  CHECK(end["attempts"] == 2);
  CHECK(end["node"] == other->id());
  CHECK(end["reason"] == "time limit of 300 ms exceeded");
  CHECK(end["started_at_ms"].get<std::int64_t>() >= retry_at);
  // Stopped at its limit, not after the minute it asked for.
  CHECK(end["finished_at_ms"].get<std::int64_t>()
          - end["started_at_ms"].get<std::int64_t>()
        < 10'000);
}

TEST_CASE("a delayed task starts no earlier than its time, an expired one "
          "never runs, a policy that cannot work is refused",
          "[process][policy]") {
  cluster c;
  auto nodes = pair_of(c, "dl");
  auto at = wall_ms() + 1500;
  auto delayed = post_task(*nodes[0], {{"kind", "echo"}, {"payload", "later"},
                                       {"not_before_ms", at}});
  REQUIRE(delayed.status == 201);
  auto delayed_id = delayed.body["ids"][0].get<std::string>();

  // Both slots busy for 3 s: a task expiring in 1 s cannot start in time.
  auto busy = post_task(*nodes[0], {{"kind", "sleep"}, {"payload", "3000"},
                                    {"count", 2}});
  REQUIRE(busy.status == 201);
  REQUIRE(wait_until([&] {
    auto s = nodes[0]->stats();
    return s && (*s)["tasks"]["running"] == 2;
  }, millis(5000)));
  auto expiring = post_task(*nodes[1], {{"kind", "echo"}, {"payload", "never"},
                                        {"expires_in_ms", 1000}});
  REQUIRE(expiring.status == 201);
  auto expiring_id = expiring.body["ids"][0].get<std::string>();

  CHECK(state_at(*nodes[1], delayed_id) == "ready");
  nlohmann::json t;
  REQUIRE(wait_until([&] {
    t = task_at(*nodes[1], delayed_id);
    return t.value("state", "") == "done";
  }, millis(15000)));
  CHECK(t["result"] == "later");
  CHECK(t["started_at_ms"].get<std::int64_t>() >= at);

  REQUIRE(wait_until([&] { return state_at(*nodes[0], expiring_id) == "expired"
                                  && state_at(*nodes[1], expiring_id) == "expired"; },
                     millis(15000)));
  // Once the slots are free it still never runs.
  REQUIRE(wait_until([&] { return state_at(*nodes[0], busy.body["ids"][1]) == "done"; },
                     millis(15000)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  t = task_at(*nodes[0], expiring_id);
  CHECK(t["state"] == "expired");
  CHECK(t["reason"] == "not started before it expired");
  CHECK(t["started_at_ms"].is_null());
  auto stats = nodes[1]->stats();
  REQUIRE(stats);
  CHECK((*stats)["tasks"]["expired"] == 1);

  // A payload no attempt could read is refused at submit, with why.
  auto bad = post_task(*nodes[0], {{"kind", "sleep"}, {"payload", "abc"}});
  CHECK(bad.status == 400);
  CHECK(bad.body["error"]
        == "sleep: payload must be milliseconds from 0 to 3600000, got 'abc'");
  auto refused = post_task(*nodes[0], {{"kind", "echo"}, {"delay_ms", 5000},
                                       {"expires_in_ms", 1000}});
  CHECK(refused.status == 400);
  CHECK(refused.body["error"]
        == "the task would expire before it may start (expiry is not after its delay)");
}

TEST_CASE("the same key submitted at two nodes, one after the other and at "
          "once, is one task",
          "[process][policy]") {
  cluster c;
  auto nodes = pair_of(c, "key");
  nlohmann::json body{{"kind", "echo"}, {"payload", "once"}, {"key", "order-7"}};
  auto first = post_task(*nodes[0], body);
  REQUIRE(first.status == 201);
  auto id = first.body["ids"][0].get<std::string>();
  // Answered by the other node with the same id, as already there.
  auto again = post_task(*nodes[1], body);
  CHECK(again.status == 200);
  CHECK(again.body["ids"][0] == id);
  CHECK(again.body["existing"][0] == id);

  // Two clients at once, one per node, the key new to both.
  body["key"] = "order-8";
  posted a, b;
  std::thread ta([&] { a = post_task(*nodes[0], body); });
  std::thread tb([&] { b = post_task(*nodes[1], body); });
  ta.join();
  tb.join();
  INFO(a.body.dump() << " " << b.body.dump());
  REQUIRE(a.body.contains("ids"));
  REQUIRE(b.body.contains("ids"));
  CHECK(a.body["ids"] == b.body["ids"]);
  auto id8 = a.body["ids"][0].get<std::string>();

  for (auto* n : nodes) {
    CHECK(wait_until([&] { return state_at(*n, id) == "done"
                                  && state_at(*n, id8) == "done"; },
                     millis(10000)));
    auto s = n->stats();
    REQUIRE(s);
    CHECK((*s)["tasks"]["total"] == 2);
  }
  // Both replicas kept the same one of the two enqueues of order-8.
  CHECK(task_at(*nodes[0], id8)["enqueuer"] == task_at(*nodes[1], id8)["enqueuer"]);
}

TEST_CASE("dice submit takes a task's policy: a time limit ends a run that "
          "may not retry, and the --wait summary fails",
          "[process][policy][cli]") {
  cluster c;
  auto& n = c.start(c.make_spec("cli-1"));
  process cli(DICE_CLI_BIN,
              {"--node", "http://" + loopback(n.spec().http_port), "--json",
               "submit", "sleep", "60000", "--time-limit", "200ms", "--retries",
               "0", "--wait", "--timeout", "30"},
              c.dir().file("cli.log"));
  auto code = cli.wait_exit(millis(30000));
  INFO(cli.log());
  REQUIRE(code);
  CHECK(*code == 1);
  auto summary = last_json_line(cli.log());
  CHECK(summary["failed"] == 1);
  auto id = summary["ids"][0].get<std::string>();
  auto t = task_at(n, id);
  CHECK(t["attempts"] == 1);
  CHECK(t["reason"] == "time limit of 200 ms exceeded");
  CHECK(t["time_limit_ms"] == 200);
  CHECK(t["max_attempts"] == 1);

  process bad(DICE_CLI_BIN,
              {"--node", "http://" + loopback(n.spec().http_port), "submit",
               "echo", "x", "--at", "tomorrow"},
              c.dir().file("bad.log"));
  REQUIRE(bad.wait_exit(millis(10000)) == 2);
  CHECK_THAT(bad.log(), Catch::Contains("--at: 'tomorrow' is not a time"));
}
