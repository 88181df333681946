#include <catch2/catch.hpp>

#include <future>

#include "executor/slot_pool.hpp"

using namespace dice;

TEST_CASE("built-in kinds validate their payloads", "[executor]") {
  cancel_token none;
  CHECK(run_echo("hi", none).result_or_reason == "hi");
  CHECK(run_sleep("0", none).ok);
  CHECK_FALSE(run_sleep("-5", none).ok);
  CHECK_FALSE(run_sleep("abc", none).ok);
  CHECK_FALSE(run_sleep("3600001", none).ok);
  CHECK_FALSE(run_cpu("0", none).ok);
  CHECK_FALSE(run_cpu("", none).ok);
  // A bad payload fails alike on every retry: it says so.
  CHECK(run_sleep("abc", none).final);
  CHECK(run_cpu("", none).final);
  CHECK_FALSE(run_sleep("0", none).final);
}

TEST_CASE("cpu results are deterministic digests", "[executor]") {
  cancel_token none;
  auto a = run_cpu("1000", none);
  auto b = run_cpu("1000", none);
  auto c = run_cpu("1001", none);
  REQUIRE(a.ok);
  CHECK(a.result_or_reason.size() == 16);
  CHECK(a.result_or_reason == b.result_or_reason);
  CHECK(a.result_or_reason != c.result_or_reason);
}

TEST_CASE("a canceled task stops and is reported canceled", "[executor]") {
  cancel_token token;
  token.cancel();
  auto out = run_sleep("100000", token);
  CHECK_FALSE(out.ok);
  CHECK(out.result_or_reason == "canceled");
}

TEST_CASE("a sleeping task wakes at once when canceled", "[executor]") {
  cancel_token token;
  auto done = std::async(std::launch::async,
                         [&token] { return run_sleep("3600000", token); });
  token.cancel();
  // Far below the hour asked for: the wait ends with the cancel.
  REQUIRE(done.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  auto out = done.get();
  CHECK_FALSE(out.ok);
  CHECK(out.result_or_reason == "canceled");
}

namespace {

// A kind that blocks until released, so tests control timing without sleeps.
struct gate {
  std::promise<void> opened;
  std::shared_future<void> wait = opened.get_future().share();
};

} // namespace

TEST_CASE("the slot pool runs at most `slots` tasks at once and reports each once",
          "[executor]") {
  auto g = std::make_shared<gate>();
  auto kinds = task_kinds::with_builtins();
  std::atomic<int> concurrent{0}, peak{0};
  kinds.add("gated", [g, &concurrent, &peak](const std::string& p, const cancel_token&) {
    auto now = ++concurrent;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    g->wait.wait();
    --concurrent;
    return task_outcome::success(p);
  });
  std::mutex mtx;
  std::vector<execution_result> results;
  std::promise<void> all_done;
  const int n = 6;
  {
    slot_pool pool{2, kinds, [&](execution_result r) {
                     std::lock_guard<std::mutex> guard{mtx};
                     results.push_back(std::move(r));
                     if (results.size() == n)
                       all_done.set_value();
                   }};
    for (int i = 0; i < n; ++i)
      pool.run({"t" + std::to_string(i), 1, "gated", std::to_string(i)});
    g->opened.set_value();
    all_done.get_future().wait();
  }
  CHECK(peak.load() <= 2);
  REQUIRE(results.size() == n);
  for (auto& r : results) {
    CHECK(r.ok);
    CHECK(r.result == r.task_id.substr(1));
  }
}

TEST_CASE("unknown kinds and throwing tasks fail with a reason", "[executor]") {
  auto kinds = task_kinds::with_builtins();
  kinds.add("boom", [](const std::string&, const cancel_token&) -> task_outcome {
    throw std::runtime_error("kaput");
  });
  std::mutex mtx;
  std::map<std::string, execution_result> results;
  std::promise<void> done;
  {
    slot_pool pool{1, kinds, [&](execution_result r) {
                     std::lock_guard<std::mutex> guard{mtx};
                     results[r.task_id] = r;
                     if (results.size() == 2)
                       done.set_value();
                   }};
    pool.run({"a", 1, "nope", ""});
    pool.run({"b", 1, "boom", ""});
    done.get_future().wait();
  }
  CHECK_FALSE(results["a"].ok);
  CHECK(results["a"].reason == "unknown task kind 'nope'");
  CHECK(results["a"].final); // no retry runs a kind this node lacks
  CHECK_FALSE(results["b"].ok);
  CHECK(results["b"].reason == "task threw: kaput");
  CHECK_FALSE(results["b"].final); // it may pass next time
}

TEST_CASE("cancel reaches a running task", "[executor]") {
  auto kinds = task_kinds::with_builtins();
  std::promise<void> started;
  kinds.add("spin", [&started](const std::string&, const cancel_token& c) {
    started.set_value();
    while (!c.canceled())
      std::this_thread::yield();
    return task_outcome::failure("canceled");
  });
  std::promise<execution_result> result;
  slot_pool pool{1, kinds, [&](execution_result r) { result.set_value(r); }};
  pool.run({"x", 3, "spin", ""});
  started.get_future().wait();
  CHECK(pool.cancel("x"));
  auto r = result.get_future().get();
  CHECK(r.canceled);
  CHECK_FALSE(r.ok);
  CHECK(r.attempt == 3);
  CHECK_FALSE(pool.cancel("x"));
}

TEST_CASE("an execution past its time limit is stopped and reported as a "
          "failed attempt, not a cancel",
          "[executor][policy]") {
  std::promise<execution_result> result;
  slot_pool pool{1, task_kinds::with_builtins(),
                 [&](execution_result r) { result.set_value(r); }};
  execution_request req{"x", 2, "sleep", "3600000"};
  req.time_limit_ms = 50;
  pool.run(req);
  auto f = result.get_future();
  // Far below the hour asked for: the limit ends it.
  REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  auto r = f.get();
  CHECK_FALSE(r.ok);
  CHECK_FALSE(r.canceled);
  CHECK_FALSE(r.final); // another attempt may be faster
  CHECK(r.reason == "time limit of 50 ms exceeded");
  CHECK(r.attempt == 2);
}

TEST_CASE("a task that ends within its time limit is not touched by it",
          "[executor][policy]") {
  std::promise<execution_result> result;
  slot_pool pool{1, task_kinds::with_builtins(),
                 [&](execution_result r) { result.set_value(r); }};
  execution_request req{"x", 1, "echo", "hi"};
  req.time_limit_ms = 60'000;
  pool.run(req);
  auto r = result.get_future().get();
  CHECK(r.ok);
  CHECK(r.result == "hi");
}

TEST_CASE("a payload a built-in kind cannot read is named at submit, with "
          "the reason its execution would give",
          "[executor][policy]") {
  CHECK(builtin_payload_problem("sleep", "100").empty());
  CHECK(builtin_payload_problem("cpu", "5000").empty());
  CHECK(builtin_payload_problem("echo", "anything").empty());
  CHECK(builtin_payload_problem("resize", "abc").empty()); // not built in
  cancel_token none;
  for (auto [kind, payload] : {std::pair{"sleep", "abc"}, {"sleep", "-5"},
                               {"cpu", "0"}, {"cpu", ""}}) {
    INFO(kind << " " << payload);
    auto why = builtin_payload_problem(kind, payload);
    CHECK_FALSE(why.empty());
    auto run = std::string(kind) == "sleep" ? run_sleep(payload, none)
                                            : run_cpu(payload, none);
    CHECK(run.result_or_reason == why);
  }
}
