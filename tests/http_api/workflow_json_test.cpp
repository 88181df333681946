// POST /workflows bodies and GET /workflows/ID answers, without a server.
#include <catch2/catch.hpp>

#include "http_api/workflow_json.hpp"

using namespace dice;
using Catch::Matchers::Contains;

namespace {

std::optional<workflow_request> parse(const std::string& body, std::string& err) {
  return parse_workflow(body, {"echo", "sleep"}, "wf-fresh", err, 1000);
}

} // namespace

TEST_CASE("a workflow's steps become tasks that name their parents' ids: a "
          "fan-out over payloads and a fan-in after it",
          "[http][workflows]") {
  std::string err;
  auto w = parse(R"({"steps": [
    {"name": "split", "kind": "echo", "payload": "x"},
    {"name": "map", "kind": "sleep", "payloads": [1, "2", 3], "after": ["split"],
     "retries": 2},
    {"name": "reduce", "kind": "echo", "after": ["map", "split"],
     "on_parent_failure": "run"}]})", err);
  INFO(err);
  REQUIRE(w);
  CHECK(w->id == "wf-fresh");
  REQUIRE(w->specs.size() == 5);
  const auto& split = w->specs[0];
  CHECK(split.after_size() == 0);
  CHECK(split.workflow() == "wf-fresh");
  CHECK(split.step() == "split");
  for (int i = 1; i <= 3; ++i) {
    const auto& m = w->specs[i];
    CHECK(m.step() == "map");
    CHECK(m.payload() == std::to_string(i));
    CHECK(m.max_attempts() == 3);
    REQUIRE(m.after_size() == 1);
    CHECK(m.after(0) == split.id());
  }
  const auto& reduce = w->specs[4];
  REQUIRE(reduce.after_size() == 4);
  CHECK(reduce.after(0) == w->specs[1].id());
  CHECK(reduce.after(3) == split.id());
  CHECK(reduce.run_after_failure());
  CHECK(w->steps["map"].size() == 3);
  // Ids derive from the workflow and the step: the same everywhere.
  std::string err2;
  auto again = parse_workflow(R"({"steps": [{"name": "split", "kind": "echo"}]})",
                              {"echo"}, "wf-fresh", err2, 5000);
  REQUIRE(again);
  CHECK(again->specs[0].id() == split.id());
}

TEST_CASE("a workflow key names the workflow the same at every node",
          "[http][workflows]") {
  std::string err;
  auto a = parse(R"({"key": "nightly-2026-11-27", "steps": [{"name": "s", "kind": "echo"}]})", err);
  auto b = parse_workflow(R"({"key": "nightly-2026-11-27", "steps": [{"name": "s", "kind": "echo"}]})",
                          {"echo"}, "wf-other", err, 9);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->keyed);
  CHECK(a->id == b->id);
  CHECK(a->id.rfind("wf-", 0) == 0);
  CHECK(a->specs[0].id() == b->specs[0].id());
}

TEST_CASE("a workflow that cannot run is refused whole, naming the step",
          "[http][workflows]") {
  auto bad = GENERATE(
    std::make_pair(R"({"steps": []})", "'steps' must be a non-empty array"),
    std::make_pair(R"({"steps": [{"kind": "echo"}]})", "with a 'name'"),
    std::make_pair(R"({"steps": [{"name": "a b", "kind": "echo"}]})", "must be 1 to 64"),
    std::make_pair(R"({"steps": [{"name": "a", "kind": "echo"}, {"name": "a", "kind": "echo"}]})",
                   "step 'a': two steps have this name"),
    std::make_pair(R"({"steps": [{"name": "a", "kind": "echo", "after": ["b"]},
                                 {"name": "b", "kind": "echo"}]})",
                   "step 'a': 'after' names \"b\", which is not an earlier step"),
    std::make_pair(R"({"steps": [{"name": "a", "kind": "echo", "after": ["a"]}]})",
                   "which is not an earlier step"),
    std::make_pair(R"({"steps": [{"name": "a", "kind": "nope"}]})",
                   "step 'a': unknown kind 'nope'"),
    std::make_pair(R"({"steps": [{"name": "a", "kind": "sleep", "payloads": ["5", "x"]}]})",
                   "step 'a':"),
    std::make_pair(R"({"steps": [{"name": "a", "kind": "echo", "count": 2}]})",
                   "'count' is the workflow's to set"),
    std::make_pair(R"({"steps": [{"name": "a", "kind": "echo", "payloads": []}]})",
                   "'payloads' must be a non-empty array"),
    std::make_pair(R"({"steps": [{"name": "a", "kind": "echo"}], "extra": 1})",
                   "unknown field 'extra'"),
    std::make_pair(R"([1])", "body must be a JSON object"));
  std::string err;
  CHECK_FALSE(parse(bad.first, err));
  CHECK_THAT(err, Contains(bad.second));
}

TEST_CASE("a workflow's status orders steps by the graph and sums them up",
          "[http][workflows]") {
  std::string err;
  auto w = parse(R"({"steps": [
    {"name": "z-first", "kind": "echo"},
    {"name": "a-then", "kind": "echo", "payloads": ["1", "2"], "after": ["z-first"]}]})", err);
  REQUIRE(w);
  std::vector<task_row> rows;
  for (const auto& spec : w->specs) {
    task_row r;
    r.has_spec = true;
    r.spec = spec;
    r.state.set_attempt(1);
    r.state.set_phase(wire::DONE);
    r.state.set_result("ok");
    rows.push_back(r);
  }
  rows.back().state.set_phase(wire::READY);
  auto j = workflow_json(w->id, rows);
  CHECK(j["state"] == "running");
  REQUIRE(j["steps"].size() == 2);
  CHECK(j["steps"][0]["name"] == "z-first");
  CHECK(j["steps"][1]["name"] == "a-then");
  CHECK(j["steps"][1]["after"] == nlohmann::json::array({"z-first"}));
  CHECK(j["steps"][1]["state"] == "running");
  CHECK(j["counts"]["done"] == 2);
  rows.back().state.set_phase(wire::CANCELED);
  rows.back().state.set_reason("parent x failed");
  j = workflow_json(w->id, rows);
  CHECK(j["state"] == "failed");
  CHECK(j["steps"][1]["tasks"][1]["reason"] == "parent x failed");
}

TEST_CASE("GET /workflows lists workflows newest first, each summed up, and "
          "leaves plain tasks out",
          "[http][workflows]") {
  std::vector<task_row> rows;
  // Workflow ids, their enqueue times and their tasks' phases.
  auto add = [&](const std::string& wf, const std::string& step, std::int64_t at,
                 wire::TaskPhase phase) {
    task_row r;
    r.has_spec = true;
    r.spec.set_id(wf + "-" + step + "-" + std::to_string(rows.size()));
    r.spec.set_workflow(wf);
    r.spec.set_step(step);
    r.spec.set_enqueue_time_ms(at);
    r.state.set_attempt(1);
    r.state.set_phase(phase);
    rows.push_back(r);
  };
  add("wf-old", "a", 100, wire::DONE);
  add("wf-old", "b", 100, wire::DONE);
  add("wf-new", "a", 300, wire::DONE);
  add("wf-new", "b", 300, wire::READY);
  add("wf-new", "b", 300, wire::READY);
  add("wf-mid", "a", 200, wire::FAILED);
  add("", "", 400, wire::READY); // a plain task: no workflow
  auto j = workflow_list_json(rows, 20);
  CHECK(j["total"] == 3);
  REQUIRE(j["workflows"].size() == 3);
  const auto& w = j["workflows"];
  CHECK(w[0]["id"] == "wf-new");
  CHECK(w[0]["state"] == "running");
  CHECK(w[0]["steps"] == 2);
  CHECK(w[0]["tasks"] == 3);
  CHECK(w[0]["counts"]["ready"] == 2);
  CHECK(w[0]["counts"]["done"] == 1);
  CHECK(w[0]["enqueued_at_ms"] == 300);
  CHECK(w[1]["id"] == "wf-mid");
  CHECK(w[1]["state"] == "failed");
  CHECK(w[2]["id"] == "wf-old");
  CHECK(w[2]["state"] == "done");
  auto first = workflow_list_json(rows, 1);
  CHECK(first["total"] == 3);
  REQUIRE(first["workflows"].size() == 1);
  CHECK(first["workflows"][0]["id"] == "wf-new");
}
