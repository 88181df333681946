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
#include <chrono>
#include <thread>

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

/// Runs that started before every earlier-started run had ended (a long run
/// may overlap several after it, not only the next).
int overlaps(const std::map<std::string, interval>& runs) {
  std::vector<interval> v;
  for (const auto& [tag, i] : runs)
    v.push_back(i);
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.start < b.start; });
  int n = 0;
  long long latest_end = v.empty() ? 0 : v[0].end;
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i].start < latest_end)
      ++n;
    latest_end = std::max(latest_end, v[i].end);
  }
  return n;
}

/// GET /locks on `node`: the entry of `lock` in "locks" (null if none).
nlohmann::json lock_entry(node_process& node, const std::string& lock) {
  auto j = get_json(node.spec().http_port, "/locks");
  if (!j)
    return nullptr;
  for (const auto& l : (*j)["locks"])
    if (l["lock"] == lock)
      return l;
  return nullptr;
}

bool has(const nlohmann::json& list, const std::string& value) {
  return list.is_array()
         && std::find(list.begin(), list.end(), value) != list.end();
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
      // GET /locks on the holder names it, and its own client holds.
      nlohmann::json held;
      bool named = wait_until([&] {
        held = lock_entry(holder, "db");
        return !held.is_null() && held["holder"] == "l-3";
      }, millis(3000));
      INFO("GET /locks on l-3: " << held.dump());
      CHECK(named);
      // Another node cannot have it meanwhile: it waits, and says so.
      auto second = dice_lock(c, c[0], "5", {"/bin/true"}, "second.log");
      nlohmann::json waiting;
      bool listed = wait_until([&] {
        waiting = lock_entry(c[0], "db");
        return !waiting.is_null() && has(waiting["waiters"], "l-1");
      }, millis(4000));
      INFO("GET /locks on l-1 while it waits: " << waiting.dump());
      CHECK(listed);
      if (!waiting.is_null())
        CHECK(waiting["holder"] != "l-1");
      REQUIRE(second->wait_exit(millis(15000)) == 3);
      CHECK(second->log().find("timed out after 5 s waiting for lock 'db'")
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
      // Afterwards nobody holds it, as the survivors see it.
      for (auto* n : {&c[0], &c[1]}) {
        nlohmann::json after;
        bool free = wait_until([&] {
          after = lock_entry(*n, "db");
          return after.is_null() || after["holder"].is_null();
        }, millis(5000));
        INFO(n->spec().id << " GET /locks: " << after.dump());
        CHECK(free);
      }
    }
  }
}

TEST_CASE("a node killed by SIGKILL while running a locked task releases the "
          "lock: another task naming it then runs", "[process][mutex]") {
  cluster c;
  auto pid_file = c.dir().file("holder.pid");
  auto mark = c.dir().file("second.ran");
  // The first attempt holds the lock for good; its re-execution, after the
  // node's death, ends at once (the task is idempotent, as tasks must be).
  auto hold = c.dir().write("hold.sh", "#!/bin/sh\n[ -e " + pid_file + " ] && exit 0\n"
                                       "echo $$ > " + pid_file + "\nexec sleep 600\n");
  auto touch = c.dir().write("touch.sh", "#!/bin/sh\ntouch " + mark + "\n");
  ::chmod(hold.c_str(), 0755);
  ::chmod(touch.c_str(), 0755);
  start_cluster(c, 3, {"--shell-allow", hold, "--shell-allow", touch, "--slots", "2"});
  auto submit = [&](node_process& at, const std::string& script) {
    process p(DICE_CLI_BIN,
              {"--node", "http://" + loopback(at.spec().http_port), "submit", "shell",
               script, "--lock", "db"},
              c.dir().file(script.substr(script.rfind('/') + 1) + ".submit.log"));
    REQUIRE(p.wait_exit(millis(5000)) == 0);
    auto id = p.log();
    id.erase(id.find_last_not_of("\n") + 1);
    return id;
  };
  auto task = [&](node_process& at, const std::string& id) {
    auto t = get_json(at.spec().http_port, "/tasks/" + id);
    return t ? *t : nlohmann::json{};
  };
  auto first = submit(c[0], hold);
  REQUIRE(wait_until([&] { return std::ifstream(pid_file).good(); }, millis(20000)));
  std::string runner;
  REQUIRE(wait_until([&] {
    auto t = task(c[0], first);
    if (t.is_null() || t["state"] != "running" || !t["node"].is_string())
      return false;
    runner = t["node"];
    return true;
  }, millis(5000)));
  auto second = submit(c[0], touch);
  // While the holder lives, the second task waits, READY, and never runs.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  CHECK_FALSE(std::ifstream(mark).good());
  CHECK(task(c[0], second)["state"] == "ready");

  node_process* victim = nullptr;
  node_process* survivor = nullptr;
  for (auto& n : c.nodes())
    (n->id() == runner ? victim : survivor) = n.get();
  REQUIRE(victim);
  victim->proc().kill_now();
  {
    pid_t command = 0;
    std::ifstream(pid_file) >> command;
    if (command > 0)
      ::kill(command, SIGKILL); // the killed node's child lives on otherwise
  }
  // Membership declares the holder dead, the lock is free, and the second
  // task runs on a survivor.
  bool ran = wait_until([&] { return task(*survivor, second)["state"] == "done"; },
                        millis(30000), millis(200));
  INFO("runner " << runner << "; second task: " << task(*survivor, second).dump()
       << "\n" << c.logs());
  CHECK(ran);
  CHECK(std::ifstream(mark).good());
  CHECK(task(*survivor, second)["node"] != runner);
}
