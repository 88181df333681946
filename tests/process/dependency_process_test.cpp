// Tasks that run after others, across real processes: a chain of shell
// steps each reading its parent's result, and a failed parent ending its
// dependants on every node while a step that runs anyway sees why.
#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;
using Catch::Matchers::Contains;

namespace {

// Three nodes of one slot that run /bin/sh, formed through the first.
std::vector<node_process*> three_shell_nodes(cluster& c, const std::string& prefix) {
  auto ini = c.dir().write(prefix + ".ini", "shell-allow = /bin/sh, /bin/false\n");
  auto specs = seeded_specs(c, {prefix + "-1", prefix + "-2", prefix + "-3"});
  for (auto& spec : specs)
    spec.extra_args = {"--config", ini, "--slots", "1"};
  return c.start_formed(std::move(specs));
}

// Submits one task with the CLI at `n`; its id.
std::string submit(cluster& c, node_process& n, std::vector<std::string> args,
                   const std::string& log) {
  args.insert(args.begin(), {"--json", "submit"});
  auto r = dice_cli(c, n, args, log);
  INFO("dice CLI output:\n" << r.output);
  REQUIRE(r.code == 0);
  auto ids = last_json_line(r.output)["ids"].get<std::vector<std::string>>();
  REQUIRE(ids.size() == 1);
  return ids[0];
}

std::string sh(const std::string& script) {
  return nlohmann::json::array({"/bin/sh", "-c", script}).dump();
}

nlohmann::json task_at(node_process& n, const std::string& id) {
  auto t = n.get_json("/tasks/" + id);
  return t ? *t : nlohmann::json::object();
}

// Waits until `id` has ended on every node; its detail on each.
std::vector<nlohmann::json> ended_everywhere(const std::vector<node_process*>& nodes,
                                             const std::string& id) {
  std::vector<nlohmann::json> seen;
  wait_until([&] {
    seen.clear();
    for (auto* n : nodes) {
      auto t = task_at(*n, id);
      auto s = t.value("state", "");
      if (s == "ready" || s == "claimed" || s == "running" || s.empty())
        return false;
      seen.push_back(t);
    }
    return true;
  }, millis(30000));
  return seen;
}

} // namespace

TEST_CASE("a chain of three shell steps: each waits for its parent and "
          "reads its result",
          "[process][dependencies]") {
  cluster c;
  auto nodes = three_shell_nodes(c, "chain");
  auto& n1 = *nodes[0];
  // All three submitted at once; the first takes a second, so the others
  // are seen waiting.
  auto a = submit(c, n1, {"shell", sh("sleep 1; printf alpha")}, "a.log");
  auto b = submit(c, *nodes[1],
                  {"shell", sh("printf '%s-beta' \"$DICE_PARENT_RESULT\""), "--after", a},
                  "b.log");
  auto g = submit(c, *nodes[2],
                  {"shell", sh("printf '%s-gamma' \"$DICE_PARENT_RESULT\""), "--after", b},
                  "g.log");
  auto waiting = task_at(n1, g);
  INFO("third step while the first runs: " << waiting.dump());
  CHECK(waiting["state"] == "ready");
  CHECK(waiting["waiting_for"] == nlohmann::json::array({b}));

  auto ends = ended_everywhere(nodes, g);
  INFO("node logs:\n" << c.logs());
  REQUIRE(ends.size() == 3);
  for (const auto& t : ends) {
    CHECK(t["state"] == "done");
    CHECK(t["result"] == "alpha-beta-gamma");
    CHECK(t["parents"][0]["id"] == b);
    CHECK(t["parents"][0]["result"] == "alpha-beta");
    CHECK(t["waiting_for"].empty());
  }
  // No step started before its parent finished.
  auto first = task_at(n1, a), second = task_at(n1, b), third = ends[0];
  CHECK(second["started_at_ms"].get<std::int64_t>()
        >= first["finished_at_ms"].get<std::int64_t>());
  CHECK(third["started_at_ms"].get<std::int64_t>()
        >= second["finished_at_ms"].get<std::int64_t>());
}

TEST_CASE("a failed parent cancels its dependants on every node, down the "
          "chain: a dependant that runs anyway receives the failure",
          "[process][dependencies]") {
  cluster c;
  auto nodes = three_shell_nodes(c, "fail");
  auto& n1 = *nodes[0];
  auto parent = submit(c, n1, {"shell", "/bin/false", "--retries", "0"}, "p.log");
  auto child = submit(c, *nodes[1], {"shell", sh("echo never"), "--after", parent},
                      "c.log");
  auto grandchild = submit(c, *nodes[2], {"shell", sh("echo never"), "--after", child},
                           "g.log");
  auto anyway = submit(c, n1,
                       {"shell", sh("cat \"$DICE_PARENT_RESULTS_FILE\""), "--after",
                        parent, "--on-parent-failure", "run"},
                       "r.log");
  INFO("node logs:\n" << c.logs());
  for (const auto& t : ended_everywhere(nodes, child)) {
    CHECK(t["state"] == "canceled");
    CHECK(t["reason"] == "parent " + parent + " failed");
  }
  for (const auto& t : ended_everywhere(nodes, grandchild)) {
    CHECK(t["state"] == "canceled");
    CHECK(t["reason"] == "parent " + child + " canceled");
    CHECK(t["started_at_ms"].is_null()); // never ran
  }
  for (const auto& t : ended_everywhere(nodes, anyway)) {
    CHECK(t["state"] == "done");
    auto seen = nlohmann::json::parse(t.value("result", ""), nullptr, false);
    REQUIRE(seen.is_array());
    CHECK(seen[0]["id"] == parent);
    CHECK(seen[0]["state"] == "failed");
    CHECK_THAT(seen[0]["reason"].get<std::string>(), Contains("exit status 1"));
  }
}

TEST_CASE("a dependency the API cannot take is refused with its reason",
          "[process][dependencies]") {
  cluster c;
  auto& n = c.start(c.make_spec("deps-bad"));
  auto twice = dice_cli(c, n, {"submit", "echo", "x", "--after", "t1,t1"}, "twice.log");
  CHECK(twice.code == 2);
  CHECK_THAT(twice.output, Contains("'after' names task t1 twice"));
  auto alone = dice_cli(c, n, {"submit", "echo", "x", "--on-parent-failure", "run"},
                        "alone.log");
  CHECK(alone.code != 0);
  CHECK_THAT(alone.output, Contains("--on-parent-failure: needs --after"));
}

TEST_CASE("a workflow fans out 100 tasks and fans their 100 results into "
          "one step, though a node running them is killed mid-way",
          "[process][dependencies][workflows]") {
  cluster c;
  auto nodes = three_shell_nodes(c, "chord");
  std::vector<std::string> payloads(100, "100"); // 100 ms each
  nlohmann::json w{
    {"steps",
     {{{"name", "work"}, {"kind", "sleep"}, {"payloads", payloads}},
      {{"name", "sum"},
       {"kind", "shell"},
       {"payload", sh("grep -o '\"state\":\"done\"' \"$DICE_PARENT_RESULTS_FILE\" | wc -l")},
       {"after", {"work"}}}}}};
  auto answer = submit_workflow(*nodes[0], w);
  auto id = answer["workflow"].get<std::string>();
  auto sum = answer["steps"]["sum"][0].get<std::string>();
  REQUIRE(answer["steps"]["work"].size() == 100);
  // Kill the third node once it has run some of the fan-out.
  REQUIRE(wait_until([&] {
    auto s = nodes[0]->get_json("/workflows/" + id);
    return s && (*s)["counts"].value("done", 0) >= 10;
  }, millis(20000)));
  nodes[2]->proc().kill_now();
  std::vector<node_process*> alive{nodes[0], nodes[1]};
  auto ends = ended_everywhere(alive, sum);
  INFO("node logs:\n" << c.logs());
  REQUIRE(ends.size() == 2);
  for (const auto& t : ends) {
    CHECK(t["state"] == "done");
    CHECK(t["result"] == "100\n"); // every parent's result reached it
    CHECK(t["parents"].size() == 100);
  }
  auto status = nodes[1]->get_json("/workflows/" + id);
  REQUIRE(status);
  CHECK((*status)["state"] == "done");
  CHECK((*status)["counts"]["done"] == 101);
  CHECK((*status)["steps"][1]["after"] == nlohmann::json::array({"work"}));
}

TEST_CASE("a workflow's chain through the CLI: each step reads the one "
          "before, and the status shows the graph",
          "[process][dependencies][workflows]") {
  cluster c;
  auto nodes = three_shell_nodes(c, "wchain");
  auto file = c.dir().write("chain.json", nlohmann::json{
    {"steps",
     {{{"name", "a"}, {"kind", "shell"}, {"payload", sh("printf a")}},
      {{"name", "b"}, {"kind", "shell"}, {"after", {"a"}},
       {"payload", sh("printf '%sb' \"$DICE_PARENT_RESULT\"")}},
      {{"name", "c"}, {"kind", "shell"}, {"after", {"b"}},
       {"payload", sh("printf '%sc' \"$DICE_PARENT_RESULT\"")}}}}}.dump());
  auto run = dice_cli(c, *nodes[1], {"workflow", "submit", file, "--wait", "--timeout", "30"},
                      "wf.log", millis(40000));
  INFO("dice output:\n" << run.output << "\nnode logs:\n" << c.logs());
  CHECK(run.code == 0);
  CHECK_THAT(run.output, Contains(": done"));
  CHECK_THAT(run.output, Contains("result: abc"));
  CHECK_THAT(run.output, Contains("c  done  after b"));
}
