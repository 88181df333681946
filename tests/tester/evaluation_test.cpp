#include <catch2/catch.hpp>

#include "tester/evaluation.hpp"
#include "tester/evaluation_plan.hpp"

using namespace dice;
using nlohmann::json;

namespace {

evaluation_record record(std::uint32_t modules) {
  evaluation_record e;
  e.id = "ev-a-1-1";
  e.name = "proj";
  e.blob = std::string(64, 'b');
  e.runner = "pytest";
  e.split = "file";
  e.timeout_s = 60;
  e.modules = modules;
  e.tasks = modules;
  e.origin = "a";
  e.submitted_ms = 1000;
  return e;
}

// One task per module.
std::vector<std::vector<std::string>> singles(const std::vector<std::string>& modules) {
  std::vector<std::vector<std::string>> out;
  for (auto& m : modules)
    out.push_back({m});
  return out;
}

module_row done_row(const wire::TaskSpec& spec, const std::string& node,
                    const module_result& r) {
  module_row row{true, spec, {}};
  row.state.set_phase(wire::DONE);
  row.state.mutable_claim()->set_node_id(node);
  row.state.set_result(encode_module_result(r, 30000));
  return row;
}

module_result result_of(const std::string& node, std::int64_t ms,
                        std::vector<std::pair<std::string, std::string>> tests) {
  module_result r;
  r.node = node;
  r.duration_ms = ms;
  for (auto& [id, outcome] : tests) {
    r.tests.push_back({id, outcome, 0.1, outcome == "failed" ? "assert" : "", false});
    r.counts.add(outcome, false);
  }
  return r;
}

} // namespace

TEST_CASE("an evaluation is a record task and one task per module",
          "[tester][evaluation]") {
  auto e = record(3);
  auto specs = evaluation_specs(e, singles({"t/a.py", "t/b.py", "t/c.py"}), {"127.0.0.1:1"}, {});
  REQUIRE(specs.size() == 4);
  CHECK(specs[0].id() == e.id);
  CHECK(specs[0].kind() == "evaluation");
  CHECK(decode_evaluation(specs[0].payload())->modules == 3);
  CHECK(specs[2].id() == "ev-a-1-1.m00001");
  CHECK(specs[2].kind() == "test");
  CHECK(specs[2].blobs(0) == e.blob);
  std::string err;
  CHECK(decode_module_task(specs[3].payload(), err)->module == "t/c.py");
}

TEST_CASE("remembered durations order modules longest first", "[tester][evaluation]") {
  auto earlier_e = record(3);
  auto earlier_specs = evaluation_specs(earlier_e, singles({"a", "b", "c"}), {}, {});
  std::vector<module_row> rows{
    done_row(earlier_specs[1], "n1", result_of("n1", 500, {{"a::x", "passed"}})),
    done_row(earlier_specs[2], "n1", result_of("n1", 9000, {{"b::x", "passed"}})),
    done_row(earlier_specs[3], "n2", result_of("n2", 2000, {{"c::x", "passed"}}))};
  auto durations = remembered_durations("proj", {{earlier_e, rows}});
  CHECK(durations == std::map<std::string, std::int64_t>{{"a", 500}, {"b", 9000}, {"c", 2000}});
  CHECK(remembered_durations("other", {{earlier_e, rows}}).empty());

  auto e = record(4);
  auto specs = evaluation_specs(e, singles({"a", "b", "c", "new"}), {}, durations);
  CHECK(specs[2].priority() > specs[3].priority()); // b (9 s) before c (2 s)
  CHECK(specs[3].priority() > specs[1].priority()); // c before a (0.5 s)
  CHECK(specs[4].priority() > specs[2].priority()); // never seen: first
}

TEST_CASE("two evaluations at once take turns: modules of equal rank share a "
          "priority, whatever history each project has", "[tester][evaluation]") {
  // "old" ran before (durations remembered, up to 9 s); "new" never did.
  auto old_e = record(4);
  old_e.id = "ev-old";
  auto new_e = record(4);
  new_e.id = "ev-new";
  std::map<std::string, std::int64_t> remembered{
    {"o1", 9000}, {"o2", 7000}, {"o3", 5000}, {"o4", 3000}};
  auto old_specs = evaluation_specs(old_e, singles({"o4", "o3", "o2", "o1"}), {}, remembered);
  auto new_specs = evaluation_specs(new_e, singles({"n1", "n2", "n3", "n4"}), {}, {});
  // The queue runs higher priorities first: order the modules so, each
  // evaluation's own order kept for equal priorities.
  std::vector<wire::TaskSpec> all(old_specs.begin() + 1, old_specs.end());
  all.insert(all.end(), new_specs.begin() + 1, new_specs.end());
  std::stable_sort(all.begin(), all.end(), [](const wire::TaskSpec& a,
                                              const wire::TaskSpec& b) {
    return a.priority() > b.priority();
  });
  std::vector<std::string> evals;
  std::string err;
  for (auto& s : all) {
    CHECK(s.priority() <= 0); // never ahead of a user task at priority 0
    evals.push_back(s.id().substr(0, s.id().find('.')));
  }
  // Interleaved: each pair of the order holds one module of each.
  CHECK(evals == std::vector<std::string>{"ev-old", "ev-new", "ev-old", "ev-new",
                                          "ev-old", "ev-new", "ev-old", "ev-new"});
  // Longest first inside the evaluation with history.
  CHECK(decode_module_task(all[0].payload(), err)->module == "o1");
  CHECK(decode_module_task(all[6].payload(), err)->module == "o4");
}

TEST_CASE("a first run ranks modules by their prior, and ranks past the band share "
          "its floor", "[tester][evaluation]") {
  auto e = record(3);
  auto specs = evaluation_specs(e, singles({"t/small.py", "t/big.py", "t/mid.py"}), {}, {},
                                {{"t/small.py", 100}, {"t/big.py", 9000},
                                 {"t/mid.py", 2000}});
  CHECK(specs[2].priority() == 0);  // big
  CHECK(specs[3].priority() == -1); // mid
  CHECK(specs[1].priority() == -2); // small
  // No prior at all: the list's order.
  auto plain = module_ranks({"a", "b", "c"}, {}, {});
  CHECK(plain == std::vector<std::size_t>{0, 1, 2});
  CHECK(module_priority(5) == -5);
  CHECK(module_priority(1'000'000) == -tester_priority_band);
}

TEST_CASE("the report counts every module's tests and says who ran what",
          "[tester][evaluation]") {
  auto e = record(3);
  auto specs = evaluation_specs(e, singles({"t/a.py", "t/b.py", "t/c.py"}), {}, {});
  std::vector<module_row> rows{
    done_row(specs[1], "n1", result_of("n1", 10, {{"t/a.py::x", "passed"},
                                                  {"t/a.py::y", "failed"}})),
    done_row(specs[2], "n2", result_of("n2", 10, {{"t/b.py::x", "skipped"}})),
    module_row{true, specs[3], {}}};
  rows[2].state.set_phase(wire::RUNNING);
  rows[2].state.mutable_claim()->set_node_id("n3");

  auto running = evaluation_report(e, rows);
  CHECK(running["state"] == "running");
  CHECK(running["modules_done"] == 2);
  CHECK(running["totals"]["passed"] == 1);
  CHECK(running["totals"]["failed"] == 1);
  CHECK(running["totals"]["skipped"] == 1);
  CHECK(running["modules"][2]["node"] == "n3");
  CHECK(running["nodes"]["n1"]["modules"] == 1);

  rows[2] = done_row(specs[3], "n3", result_of("n3", 10, {}));
  rows[2].state.set_result(R"({"node":"n3","error":"pytest: killed by signal Aborted",)"
                           R"("counts":{"errors":1},"tests":[]})");
  rows[0].state.set_finished_time_ms(5000);
  rows[2].state.set_finished_time_ms(7000);
  auto done = evaluation_report(e, rows);
  CHECK(done["state"] == "done");
  // When the last module ended: what dice test --follow counts from the
  // submit, however late it follows.
  CHECK(done["finished_ms"] == 7000);
  CHECK(done["totals"]["errors"] == 1);
  CHECK(done["totals"]["tests"] == 4);
  CHECK(done["modules"][2]["error"] == "pytest: killed by signal Aborted");
  CHECK(evaluation_summary(e, rows)["totals"] == done["totals"]);

  SECTION("a module task that FAILED (no node could fetch the blob) is an error") {
    rows[1].state.set_phase(wire::FAILED);
    rows[1].state.set_reason("test: project blob not found");
    auto r = evaluation_report(e, rows);
    CHECK(r["totals"]["errors"] == 2);
    CHECK(r["totals"]["skipped"] == 0);
  }
}

TEST_CASE("light modules share a task in the project's order, heavy ones run alone",
          "[tester][evaluation]") {
  // 10 s of tests on 2 runner nodes: a task aims at 10 s / (4 x 2).
  std::map<std::string, std::int64_t> ms{
    {"big", 4000}, {"mid", 2000}, {"a", 900}, {"b", 800}, {"c", 700},
    {"d", 600},    {"e", 500},    {"f", 300}, {"g", 200}};
  std::vector<std::string> modules;
  for (auto& [m, d] : ms)
    modules.push_back(m);
  auto groups = module_groups(modules, ms, {}, 2);
  using G = std::vector<std::vector<std::string>>;
  CHECK(groups == G{{"a"}, {"b"}, {"big"}, {"c"}, {"d", "e"}, {"f", "g"},
                    {"mid"}});
  // One runner: fewer, fuller tasks.
  CHECK(module_groups(modules, ms, {}, 1)
        == G{{"a", "b"}, {"big"}, {"c", "d", "e", "f", "g"}, {"mid"}});
  // Stretches of the project's order (plain pytest's), not of the weights'.
  CHECK(module_groups({"y", "big", "x"}, {{"y", 1}, {"x", 2}, {"big", 100}}, {}, 1)
        == G{{"y"}, {"big"}, {"x"}});
  // The heaviest group still ranks first.
  auto e = record(2);
  e.tasks = 2;
  auto specs = evaluation_specs(e, {{"y", "x"}, {"big"}}, {}, {{"y", 1}, {"x", 2}, {"big", 100}});
  CHECK(specs[2].priority() > specs[1].priority());
  // Eight: every module alone.
  CHECK(module_groups(modules, ms, {}, 8).size() == modules.size());
  // A first run weighs by prior; without one, by count.
  CHECK(module_groups({"x", "y", "z", "w"}, {}, {{"x", 10}, {"y", 10}, {"z", 10}, {"w", 10}}, 1)
        == G{{"x"}, {"y"}, {"z"}, {"w"}});
  CHECK(module_groups({"x", "y", "z", "w"}, {}, {}, 1).size() == 4);
  std::vector<std::string> many;
  for (int i = 0; i < 40; ++i)
    many.push_back("t" + std::to_string(i));
  CHECK(module_groups(many, {}, {}, 1).size() == 4);
  CHECK(module_groups(many, {}, {}, 0).size() == 4); // no runner heard: as one
}

TEST_CASE("a task of several modules is reported module by module, and each "
          "one's share is remembered", "[tester][evaluation]") {
  auto e = record(3);
  e.tasks = 2;
  auto specs = evaluation_specs(e, {{"t/a.py"}, {"t/b.py", "t/c.py"}}, {}, {});
  REQUIRE(specs.size() == 3);
  std::string err;
  auto grouped = decode_module_task(specs[2].payload(), err);
  REQUIRE(grouped);
  CHECK(grouped->modules() == std::vector<std::string>{"t/b.py", "t/c.py"});

  auto group = result_of("n2", 3000, {{"t/b.py::x", "passed"}, {"t/b.py::y", "failed"},
                                      {"t/c.py::x", "passed"}});
  group.shares = group_shares(grouped->modules(), group);
  std::vector<module_row> rows{
    done_row(specs[1], "n1", result_of("n1", 700, {{"t/a.py::x", "passed"}})),
    done_row(specs[2], "n2", group)};
  auto report = evaluation_report(e, rows);
  CHECK(report["state"] == "done");
  CHECK(report["modules_total"] == 3);
  CHECK(report["modules_done"] == 3);
  CHECK(report["totals"]["passed"] == 3);
  CHECK(report["totals"]["failed"] == 1);
  REQUIRE(report["modules"].size() == 3);
  auto b = report["modules"][1];
  auto c = report["modules"][2];
  CHECK(b["module"] == "t/b.py");
  CHECK(b["counts"]["tests"] == 2);
  CHECK(b["tests"].size() == 2);
  CHECK(c["module"] == "t/c.py");
  CHECK(c["counts"]["passed"] == 1);
  CHECK(c["node"] == "n2");
  CHECK(report["nodes"]["n2"]["modules"] == 2);
  // 3 s less 0.3 s of tests, shared: b 0.2 s + 1.35 s, c 0.1 s + 1.35 s.
  CHECK(b["duration_ms"] == 1550);
  CHECK(c["duration_ms"] == 1450);
  auto remembered = remembered_durations("proj", {{e, rows}});
  CHECK(remembered == std::map<std::string, std::int64_t>{
                        {"t/a.py", 700}, {"t/b.py", 1550}, {"t/c.py", 1450}});

  SECTION("a group whose task failed is one error per module") {
    rows[1].state.set_phase(wire::FAILED);
    rows[1].state.set_reason("test: project blob not found");
    auto r = evaluation_report(e, rows);
    CHECK(r["totals"]["errors"] == 2);
    CHECK(r["modules"][2]["error"] == "module task failed: test: project blob not found");
  }
  SECTION("while it runs, each of its modules shows the node") {
    rows[1] = module_row{true, specs[2], {}};
    rows[1].state.set_phase(wire::RUNNING);
    rows[1].state.mutable_claim()->set_node_id("n2");
    auto r = evaluation_report(e, rows);
    CHECK(r["state"] == "running");
    CHECK(r["modules_done"] == 1);
    CHECK(r["modules"][2]["module"] == "t/c.py");
    CHECK(r["modules"][2]["node"] == "n2");
  }
}

TEST_CASE("an evaluation's options are checked", "[tester][evaluation]") {
  tester_config cfg;
  std::string err;
  auto ok = parse_evaluation_request(json{{"runner", "pytest"}, {"timeout", "30"},
                                          {"reruns", 2}, {"name", "p"}},
                                     cfg, err);
  REQUIRE(ok);
  CHECK(ok->timeout_s == 30);
  CHECK(ok->reruns == 2);
  CHECK(ok->split == "file");
  CHECK_FALSE(parse_evaluation_request(json{{"runner", "nose"}}, cfg, err));
  CHECK_THAT(err, Catch::Matchers::Contains("runner"));
  CHECK_FALSE(parse_evaluation_request(json{{"timeout", "0"}}, cfg, err));
  CHECK_FALSE(parse_evaluation_request(json{{"timeout", "-5"}}, cfg, err));
  CHECK_FALSE(parse_evaluation_request(json{{"colour", "blue"}}, cfg, err));
  CHECK_THAT(err, Catch::Matchers::Contains("unknown field"));
  CHECK_FALSE(parse_evaluation_request(json{{"runner", "cmd"}}, cfg, err));
  CHECK_THAT(err, Catch::Matchers::Contains("needs modules"));
  auto cmd = parse_evaluation_request(
    json{{"runner", "cmd"}, {"modules", R"(["true", "false"])"}}, cfg, err);
  REQUIRE(cmd);
  CHECK(cmd->modules.size() == 2);
  CHECK(cmd->split == "list");
}
