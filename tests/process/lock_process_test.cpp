// Cluster-wide locks across real dice-node processes on 127.0.0.1: tasks
// naming one lock never overlap, wherever they run (and the same tasks
// without it do, so the check can fail); `dice lock` excludes a second
// holder, and a holder killed by SIGKILL releases the lock once membership
// declares it dead, with each of the four algorithms.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <cstdio>

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <csignal>
#include <sys/types.h>

#include "cluster.hpp"

using namespace dice::test;

namespace {

/// A task that records its start and end (ns) in `log`, sleeping between.
std::string write_recorder(const temp_dir& dir, const std::string& log) {
  auto path = dir.write("record.sh", "#!/bin/sh\n"
                                     "echo \"$1 start $(date +%s%N)\" >> " + log + "\n"
                                     "sleep 0.3\n"
                                     "echo \"$1 end $(date +%s%N)\" >> " + log + "\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

struct interval {
  long long start = 0, end = 0;
};

std::map<std::string, interval> read_intervals(const std::string& log) {
  std::map<std::string, interval> out;
  std::ifstream in(log);
  std::string tag, what;
  long long ns = 0;
  while (in >> tag >> what >> ns)
    (what == "start" ? out[tag].start : out[tag].end) = ns;
  return out;
}

/// Pairs of tasks that ran at the same time.
int overlaps(const std::map<std::string, interval>& runs) {
  std::vector<interval> v;
  for (const auto& [tag, i] : runs)
    v.push_back(i);
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.start < b.start; });
  int n = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i].start < v[i - 1].end)
      ++n;
  return n;
}

/// Submits `count` recorder tasks through the CLI, tagged prefix0..; with
/// --lock db when `locked`; waits for them to end.
void run_tasks(cluster& c, const std::string& script, const std::string& prefix,
               int count, bool locked) {
  auto url = "http://" + loopback(c[0].spec().http_port);
  std::vector<std::string> ids;
  for (int i = 0; i < count; ++i) {
    std::vector<std::string> args{"--node", url, "submit", "shell",
                                  script + " " + prefix + std::to_string(i)};
    if (locked) {
      args.push_back("--lock");
      args.push_back("db");
    }
    process p(DICE_CLI_BIN, args, c.dir().file(prefix + std::to_string(i) + ".log"));
    REQUIRE(p.wait_exit(millis(5000)) == 0);
    auto id = p.log();
    id.erase(id.find_last_not_of("\n") + 1);
    ids.push_back(id);
  }
  REQUIRE(wait_until([&] {
    auto t = get_json(c[0].spec().http_port, "/tasks?state=done");
    if (!t)
      return false;
    std::set<std::string> done;
    for (const auto& row : (*t)["tasks"])
      done.insert(row["id"].get<std::string>());
    return std::all_of(ids.begin(), ids.end(),
                       [&](const std::string& id) { return done.count(id) > 0; });
  }, millis(60000), millis(200)));
}

void start_cluster(cluster& c, int n, const std::vector<std::string>& extra) {
  auto first = c.make_spec("l-1");
  first.extra_args = extra;
  c.start(first);
  for (int i = 2; i <= n; ++i) {
    auto spec = c.make_spec("l-" + std::to_string(i));
    spec.peers = {c[0].spec().udp_addr()};
    spec.extra_args = extra;
    c.start(spec);
  }
  REQUIRE(wait_until([&] {
    for (auto& node : c.nodes())
      if (node->alive_count() != static_cast<std::size_t>(n))
        return false;
    return true;
  }, millis(10000)));
}

/// Runs `dice lock NAME --timeout S -- ARGS` against `node`.
std::unique_ptr<process> dice_lock(cluster& c, node_process& node,
                                   const std::string& timeout,
                                   const std::vector<std::string>& command,
                                   const std::string& log) {
  std::vector<std::string> args{"--node", "http://" + loopback(node.spec().http_port),
                                "lock", "db", "--timeout", timeout, "--"};
  args.insert(args.end(), command.begin(), command.end());
  return std::make_unique<process>(DICE_CLI_BIN, args, c.dir().file(log));
}

} // namespace

TEST_CASE("tasks naming one lock never run at the same time across four "
          "nodes, and without the lock they do", "[process][mutex]") {
  cluster c;
  auto log = c.dir().file("runs.txt");
  auto script = write_recorder(c.dir(), log);
  start_cluster(c, 4, {"--shell-allow", script, "--slots", "2"});

  run_tasks(c, script, "free", 8, false);
  auto free_runs = read_intervals(log);
  REQUIRE(free_runs.size() == 8);
  CHECK(overlaps(free_runs) > 0); // the check below can fail

  std::remove(log.c_str());
  run_tasks(c, script, "locked", 12, true);
  auto runs = read_intervals(log);
  REQUIRE(runs.size() == 12);
  INFO(c.logs());
  CHECK(overlaps(runs) == 0);
  // They ran on more than one node: the lock moved between nodes.
  auto t = get_json(c[0].spec().http_port, "/tasks?state=done");
  REQUIRE(t);
  std::set<std::string> nodes;
  for (const auto& row : (*t)["tasks"])
    nodes.insert(row["node"].get<std::string>());
  CHECK(nodes.size() > 1);
  // GET /locks answers, and the lock is free again everywhere.
  auto locks = get_json(c[1].spec().http_port, "/locks");
  REQUIRE(locks);
  CHECK((*locks)["algorithm"] == "ricart-agrawala");
}

TEST_CASE("dice lock excludes a second holder, and a holder killed by "
          "SIGKILL releases the lock", "[process][mutex]") {
  for (std::string algorithm : {"ricart-agrawala", "central", "voting", "token-ring"}) {
    DYNAMIC_SECTION(algorithm) {
      cluster c;
      std::vector<std::string> extra{"--mutex", algorithm};
      if (algorithm == "voting")
        extra.insert(extra.end(), {"--mutex-voters", "3"});
      start_cluster(c, 3, extra);
      // The holder is the highest id: bully makes it the coordinator, so
      // central loses its coordinator and the lock's holder at once.
      auto& holder = c[2];
      auto flag = c.dir().file("holding");
      // The command writes its pid: killing the dice CLI leaves it
      // running (its own process group), and the test stops it itself.
      auto first = dice_lock(c, holder, "30",
                             {"/bin/sh", "-c", "echo $$ > " + flag + "; exec sleep 600"},
                             "first.log");
      REQUIRE(wait_until([&] { return std::ifstream(flag).good(); }, millis(20000)));
      // Another node cannot have it meanwhile.
      auto second = dice_lock(c, c[0], "1", {"/bin/true"}, "second.log");
      REQUIRE(second->wait_exit(millis(10000)) == 3);
      CHECK(second->log().find("timed out after 1 s waiting for lock 'db'")
            != std::string::npos);
      holder.proc().kill_now();
      first->kill_now();
      {
        pid_t command = 0;
        std::ifstream(flag) >> command;
        if (command > 0)
          ::kill(command, SIGKILL);
      }
      auto third = dice_lock(c, c[0], "30", {"/bin/sh", "-c", "exit 7"}, "third.log");
      auto code = third->wait_exit(millis(40000));
      INFO(c.logs() << third->log());
      CHECK(code == 7); // it got the lock, ran the command, passed its status on
    }
  }
}
