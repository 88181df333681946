// The journal across real processes: every node killed at once and
// restarted loses no acknowledged task and keeps every result; a second
// node on a data dir in use is refused.
#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;

namespace {

/// `dice --json submit ARGS...` against node `n`: the ids it was answered.
std::vector<std::string> submit(cluster& c, const node_process& n,
                                std::vector<std::string> args,
                                const std::string& log) {
  std::vector<std::string> argv = {"--node",
                                   "http://" + loopback(n.spec().http_port),
                                   "--json", "submit"};
  argv.insert(argv.end(), args.begin(), args.end());
  process cli(DICE_CLI_BIN, argv, c.dir().file(log));
  auto code = cli.wait_exit(millis(60000));
  INFO("dice " << log << ":\n" << cli.log());
  REQUIRE(code);
  REQUIRE(*code == 0);
  auto reply = last_json_line(cli.log());
  REQUIRE_FALSE(reply.is_discarded());
  return reply["ids"].get<std::vector<std::string>>();
}

std::string state_at(const node_process& n, const std::string& id,
                     std::string* result = nullptr) {
  auto t = get_json(n.spec().http_port, "/tasks/" + id);
  if (!t)
    return "";
  if (result != nullptr)
    *result = t->value("result", "");
  return t->value("state", "");
}

} // namespace

TEST_CASE("kill -9 of every node at once, then a restart: no acknowledged "
          "task is lost, finished ones keep their results, the rest run",
          "[process][journal]") {
  cluster c;
  auto specs = seeded_specs(c, {"d-1", "d-2", "d-3"});
  for (const auto& spec : specs)
    c.start(spec);
  REQUIRE(wait_until([&] { return c[0].alive_count() == 3
                                  && c[2].alive_count() == 3; },
                     millis(5000)));
  // Finished before the crash: their results must come back.
  auto finished = submit(c, c[0], {"echo", "kept", "--count", "20", "--wait",
                                   "--timeout", "30"}, "finished.log");
  // Acknowledged, mostly not yet run, when every node dies.
  auto pending = submit(c, c[1], {"sleep", "300", "--count", "30"},
                        "pending.log");
  REQUIRE(finished.size() == 20);
  REQUIRE(pending.size() == 30);
  for (auto& n : c.nodes())
    n->proc().kill_now();

  cluster after;
  for (auto& spec : specs)
    after.start(spec);
  INFO("logs before the crash:\n" << c.logs() << "\nafter:\n" << after.logs());
  for (auto& n : after.nodes()) {
    INFO("node " << n->id());
    for (auto& id : finished) {
      std::string result;
      CHECK(wait_until([&] { return state_at(*n, id, &result) == "done"; },
                       millis(10000)));
      CHECK(result == "kept");
    }
    for (auto& id : pending)
      CHECK(wait_until([&] { return state_at(*n, id) == "done"; },
                       millis(30000)));
  }
  auto stats = after[0].stats();
  REQUIRE(stats);
  CHECK((*stats)["queue"]["journal"]["records_loaded"].get<int>() > 0);
}

TEST_CASE("a second node started on a data dir in use is refused at once, "
          "naming the directory and the fix",
          "[process][journal]") {
  cluster c;
  auto& first = c.start(c.make_spec("dd-1"));
  auto twin = c.make_spec("dd-2");
  twin.data_dir = first.spec().data_dir;
  auto r = run_node_to_exit(twin.args(), c.dir(), "twin.log", millis(5000));
  INFO(r.output);
  REQUIRE(r.exit_code);
  CHECK(*r.exit_code != 0);
  CHECK(r.output.find("is in use by another running node") != std::string::npos);
  CHECK(r.output.find("--data-dir") != std::string::npos);
  CHECK(first.healthy());
}
