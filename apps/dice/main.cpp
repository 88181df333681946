// dice: the command-line client of a DiCE node's HTTP API.
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "client.hpp"
#include "node/http_config.hpp"
#include "format.hpp"
#include "event_command.hpp"
#include "lock_command.hpp"
#include "progress.hpp"
#include "cli_args.hpp"
#include "common/time.hpp"
#include "task_commands.hpp"
#include "drain_command.hpp"
#include "workflow_command.hpp"
#include "schedule_command.hpp"
#include "keys_command.hpp"
#include "task_options.hpp"
#include "test_command.hpp"

using namespace dice::cli;

namespace {

const char* usage =
  "dice: use a DiCE cluster through one node's HTTP API.\n"
  "Usage: dice [--node URL] [--json] COMMAND [ARGS]\n"
  "Commands:\n"
  "  submit KIND PAYLOAD|--payload-file FILE [--count N] [--priority P]\n"
  "         [--lock NAME]... [--ids-file F] [--wait] [--timeout S] [TASK POLICY]\n"
  "                 enqueue N tasks (default 1, priority 0) and print their\n"
  "                 ids (or write them to F, one per line); the payload from\n"
  "                 FILE (- for stdin); with --lock they run only holding that\n"
  "                 cluster-wide lock (no two tasks sharing a lock run at once);\n"
  "                 with --wait follow them to the end as dice wait does;\n"
  "                 exit 2 if the node refused the submit as malformed\n"
  "  wait ID...|--ids-file F [--timeout S]\n"
  "                 follow tasks to their end with a progress bar, through\n"
  "                 another live member if the node goes away; the reasons\n"
  "                 of the first failures; exit 0 all done, 1 some failed,\n"
  "                 expired, were canceled or removed, 3 no member answers,\n"
  "                 4 --timeout passed (default 3600 s; the tasks go on)\n"
  "  Task policy (DURATION: 500ms, 30s, 10m, 2h, 1d; TIME: a DURATION from now,\n"
  "  18:00, 2026-11-26T18:00 local or 2026-11-26T18:00:00Z UTC):\n"
  "    --time-limit DURATION  an execution running longer is stopped and counts\n"
  "                 as a failed attempt\n"
  "    --retries N  at most N+1 executions (default: the node's --max-attempts)\n"
  "    --backoff DURATION  wait before the 2nd attempt, doubling after (jittered)\n"
  "    --delay DURATION | --at TIME  no node starts it earlier\n"
  "    --expires TIME  not started by then, it ends expired and never runs\n"
  "    --keep DURATION  kept this long after it ends, then forgotten by every\n"
  "                 node (default: the nodes' --keep-finished-ms, 24h)\n"
  "    --key K      idempotency key: the same K submitted again, at any node,\n"
  "                 is the same task (its id is printed again; with --count N,\n"
  "                 the keys K/1..K/N)\n"
  "    --after ID[,ID...]  run once these tasks are done; the program of a\n"
  "                 shell task finds their results in $DICE_PARENT_RESULT (the\n"
  "                 first) and the JSON file $DICE_PARENT_RESULTS_FILE (all)\n"
  "    --on-parent-failure cancel|run  a parent that fails, expires or is\n"
  "                 canceled or removed cancels the task (default), or it\n"
  "                 runs anyway once every parent has ended\n"
  "  tasks [--state ready|claimed|running|done|failed|expired|canceled|removed]\n"
  "        [--kind K] [--on NODE] [--limit N] [--after ID]\n"
  "                 tasks in id order (a-2 before a-10); --on: claimed by NODE;\n"
  "                 --limit/--after: a page, and the --after of the next one\n"
  "  results ID...  results of many tasks at once (ID - reads ids from stdin)\n"
  "  workflow submit FILE.json|FILE.yaml [--wait] [--timeout S]\n"
  "                 submit a graph of steps at once (docs/workflows.md): each\n"
  "                 step a task, or one per item of its \"payloads\", after the\n"
  "                 earlier steps it names; prints the workflow id (--wait:\n"
  "                 follows every task, then prints the graph)\n"
  "  workflow status ID   the graph, each step's state and short results;\n"
  "                 exit 1 if it ended with a step not done\n"
  "  workflow cancel|remove ID   cancel or remove every task of the workflow\n"
  "  schedule add NAME (--every DURATION | --cron \"M H D MON W\") [--jitter D]\n"
  "         [--catch-up last|none|all] [--exclusive] [--] KIND PAYLOAD\n"
  "         [--time-limit D] [--retries N] [--backoff D] [--keep D]\n"
  "                 a periodic schedule every node holds: each tick (from the\n"
  "                 epoch, or cron in UTC) is one task, run once in a connected\n"
  "                 cluster; ticks missed while no node ran: the latest (last,\n"
  "                 the default), none or all; --exclusive: each tick holds the\n"
  "                 cluster-wide lock schedule:NAME while it runs, so no two\n"
  "                 ticks run at once (docs/workflows.md)\n"
  "  schedule list | remove NAME\n"
  "  lock NAME [--timeout S] -- COMMAND [ARGS...]\n"
  "                 run COMMAND here holding cluster-wide lock NAME; exit with\n"
  "                 its status (3: no lock within S seconds, default 3600;\n"
  "                 4: the lock was lost and COMMAND killed)\n"
  "  locks          holders and waiters of the cluster-wide locks (GET /locks)\n"
  "  event publish TOPIC DATA   send an event to every node (causal order)\n"
  "  event watch TOPIC [--count N] [--since INDEX]  print the events of\n"
  "                 TOPIC this node delivers, in causal order (until killed,\n"
  "                 or N events); --since: only those delivered after INDEX\n"
  "                 (each event's index is in its --json line)\n"
  "  status ID      one task, with its result\n"
  "  remove ID|ID ID...|--state S [--kind K] [--on NODE] [--dry-run]\n"
  "                 removeByID: the tasks are dropped everywhere; many at\n"
  "                 once by ids or filter (--dry-run: only count them)\n"
  "  cancel ID|ID ID...|--state S [--kind K] [--on NODE] [--dry-run]\n"
  "                 cancel tasks that have not ended, one or many\n"
  "  retry ID       submit a failed, expired or canceled task again (a new\n"
  "                 task: its kind, payload, priority, locks and policy)\n"
  "  drain [NODE] [--leave] [--wait] [--timeout S]\n"
  "                 NODE (an id; default: the --node one) claims nothing new\n"
  "                 and finishes what it holds; --wait: until it holds\n"
  "                 nothing (exit 4 after S seconds, default 3600); --leave:\n"
  "                 then it stops, as on SIGTERM\n"
  "  undrain [NODE] NODE claims tasks again\n"
  "  keys list      the cluster keys: each key id, how many live members\n"
  "                 hold it (n/N) and on which it is primary (signs)\n"
  "  keys install FILE|-  add the key in FILE (raw bytes, >= 16, as\n"
  "                 --cluster-key-file; - for stdin) on every live member\n"
  "  keys use ID    sign with key ID on every live member (refused unless\n"
  "                 every one holds it)\n"
  "  keys remove ID drop key ID on every live member (refused while it is\n"
  "                 any member's primary); each prints one line per member\n"
  "                 and exits 1 naming the members that failed. The key\n"
  "                 travels to each node's API: use TLS or loopback\n"
  "  leader         the coordinator this node follows, with the election's\n"
  "                 algorithm, state and group (GET /election)\n"
  "  nodes          the node's membership view\n"
  "  stats          the node's counters (GET /stats; /metrics for Prometheus)\n"
  "  health         is the node up\n"
  "  test PATH|ARCHIVE|GIT-URL [--runner pytest|cmd] [--split file|test] [--wait] ...\n"
  "                 run a project's tests on the cluster (dice test --help)\n"
  "Options:\n"
  "  --node URL     node API (default $DICE_NODE or http://127.0.0.1:8400)\n"
  "  --token-file FILE  send the bearer token in FILE (a node started with\n"
  "                 --http-token-file asks for it; default $DICE_TOKEN_FILE)\n"
  "  --ca-file FILE  an https:// node's certificate must be signed by a CA in\n"
  "                 this PEM file (its own certificate, if self-signed);\n"
  "                 default $DICE_CA_FILE, else the system's CAs\n"
  "  --json         print JSON instead of text\n"
  "  -h, --help     print this help\n"
  "  --version      print the version\n"
  "Built-in kinds: sleep (payload: ms), cpu (payload: iterations), echo.\n";

bool is_flag(const std::string& name) {
  return name == "--json" || name == "--wait" || name == "--dry-run"
         || name == "--leave" || name == "--exclusive";
}

bool takes_value(const std::string& name) {
  for (auto* o : {"--node", "--count", "--priority", "--state", "--timeout",
                  "--token-file", "--ca-file", "--kind", "--on", "--limit", "--after",
                  "--payload-file", "--ids-file", "--since", "--every", "--cron",
                  "--jitter", "--catch-up"})
    if (name == o)
      return true;
  for (auto* o : task_policy_options)
    if (name == o)
      return true;
  return false;
}

void print_nodes(const nlohmann::json& body) {
  std::cout << std::left << std::setw(18) << "ID" << std::setw(22) << "ADDR"
            << std::setw(9) << "STATE" << std::right << std::setw(10) << "SEEN(ms)"
            << "\n";
  for (auto& n : body.at("nodes")) {
    auto id = n.value("id", "");
    if (id == body.value("self", ""))
      id += " *";
    std::cout << std::left << std::setw(18) << id << std::setw(22)
              << n.value("addr", "") << std::setw(9) << n.value("state", "")
              << std::right << std::setw(10) << n.value("last_seen_ms", 0LL) << "\n";
  }
}

void print_leader(const nlohmann::json& body) {
  auto coord = body["coordinator"];
  std::cout << (coord.is_string() ? coord.get<std::string>() : "none") << " ("
            << body.value("algorithm", "") << ", " << body.value("state", "");
  auto group = body.value("group", "");
  if (!group.empty())
    std::cout << ", group " << group;
  std::cout << ")\n";
}

int submit(client& node, const args& a, bool json) {
  bool from_file = a.opts.count("--payload-file") > 0;
  if (a.words.size() != (from_file ? 2u : 3u))
    return fail("usage: dice submit KIND PAYLOAD|--payload-file FILE [--count N] "
                "[--priority P] [--wait] [task policy: see dice --help]", 2);
  std::string payload;
  if (from_file) {
    std::string error;
    if (!read_payload(a.opts.at("--payload-file"), payload, error))
      return fail(error, 2);
  } else {
    payload = a.words[2];
  }
  nlohmann::json body{{"kind", a.words[1]}, {"payload", payload}};
  long long n = 0;
  if (a.opts.count("--count")) {
    if (!number(a.opts.at("--count"), 1, 10000, n))
      return fail("--count must be a number from 1 to 10000", 2);
    body["count"] = n;
  }
  if (a.opts.count("--priority")) {
    if (!number(a.opts.at("--priority"), -1000000, 1000000, n))
      return fail("--priority must be a number from -1000000 to 1000000", 2);
    body["priority"] = n;
  }
  if (!a.locks.empty())
    body["locks"] = a.locks;
  std::string error;
  if (!add_task_policy(a.opts, dice::wall_clock_ms(), body, error))
    return fail(error, 2);
  long long timeout = 3600;
  if (a.opts.count("--timeout") && !number(a.opts.at("--timeout"), 1, 86400, timeout))
    return fail("--timeout must be seconds from 1 to 86400", 2);
  auto r = node.post("/tasks", body);
  if (!r.ok())
    return fail(r.error, r.status == 400 ? 2 : 1); // 2: the submit itself is wrong
  std::vector<std::string> ids = r.body["ids"].get<std::vector<std::string>>();
  // A key submitted before: the same task(s), not new ones.
  if (!json && r.body.contains("existing") && !r.body["existing"].empty())
    std::cerr << "dice: " << r.body["existing"].size()
              << " of these tasks existed already under their key\n";
  wait_request w{ids, static_cast<double>(timeout), json, ""};
  if (a.opts.count("--ids-file")) {
    w.ids_file = a.opts.at("--ids-file");
    if (!write_ids_file(w.ids_file, ids, error))
      return fail(error + " (the tasks were submitted)", 1);
  }
  if (!a.opts.count("--wait")) {
    if (json)
      std::cout << r.body.dump() << "\n";
    else if (w.ids_file.empty())
      for (auto& id : ids)
        std::cout << id << "\n";
    return 0;
  }
  // The ids first: if this node goes away, they are what follows the batch.
  if (!json) {
    if (w.ids_file.empty())
      for (auto& id : ids)
        std::cout << id << "\n";
    std::cout << "submitted " << ids.size() << " task(s) to " << node.url()
              << (w.ids_file.empty() ? "" : ", ids in " + w.ids_file) << "\n"
              << std::flush;
  }
  return wait_for(node, w);
}

int wait_command(client& node, const args& a, bool json) {
  wait_request w;
  w.json = json;
  std::string error;
  if (a.opts.count("--ids-file")) {
    w.ids_file = a.opts.at("--ids-file");
    if (!read_ids_file(w.ids_file, w.ids, error))
      return fail(error, 2);
  }
  w.ids.insert(w.ids.end(), a.words.begin() + 1, a.words.end());
  if (w.ids.empty())
    return fail("usage: dice wait ID...|--ids-file FILE [--timeout S]", 2);
  long long timeout = 3600;
  if (a.opts.count("--timeout") && !number(a.opts.at("--timeout"), 1, 86400, timeout))
    return fail("--timeout must be seconds from 1 to 86400", 2);
  w.timeout_s = static_cast<double>(timeout);
  return wait_for(node, w);
}

int lock_subcommand(client& node, const args& a, bool json) {
  if (a.words[0] == "locks")
    return show_locks(node, json);
  if (a.words.size() != 2)
    return fail("usage: dice lock NAME [--timeout S] -- COMMAND [ARGS...]", 2);
  long long timeout = 3600;
  if (a.opts.count("--timeout") && !number(a.opts.at("--timeout"), 0, 86400, timeout))
    return fail("--timeout must be seconds from 0 to 86400", 2);
  return lock_command(node, a.words[1], static_cast<double>(timeout), a.command, json);
}

} // namespace

int main(int argc, char** argv) {
  if (auto code = maybe_test_command(argc, argv)) // dice test (test_command.cpp)
    return *code;
  std::string url = std::getenv("DICE_NODE") ? std::getenv("DICE_NODE")
                                             : "http://127.0.0.1:8400";
  args a;
  for (int i = 1; i < argc; ++i) {
    std::string w = argv[i];
    if (w == "-h" || w == "--help") {
      std::cout << usage;
      return 0;
    }
    if (w == "--version") {
      std::cout << "dice " << DICE_VERSION << "\n";
      return 0;
    }
    if (w == "--") { // the rest is a command (dice lock)
      a.command.assign(argv + i + 1, argv + argc);
      break;
    }
    if (w == "--lock") {
      if (++i == argc)
        return fail("--lock needs a value", 2);
      a.locks.push_back(argv[i]);
      continue;
    }
    if (w.rfind("--", 0) != 0) {
      a.words.push_back(w);
    } else if (is_flag(w)) {
      a.opts[w] = "";
    } else if (takes_value(w)) {
      if (++i == argc)
        return fail(w + " needs a value", 2);
      a.opts[w] = argv[i];
    } else {
      return fail("unknown option " + w + " (see dice --help)", 2);
    }
  }
  if (a.opts.count("--node"))
    url = a.opts["--node"];
  bool json = a.opts.count("--json") > 0;
  if (a.words.empty())
    return fail("expected a command (see dice --help)", 2);
  // A file, not the token itself: a token on the command line shows in
  // `ps` to every user of the machine; a file keeps its permissions.
  const char* env_token_file = std::getenv("DICE_TOKEN_FILE");
  std::string token_file = env_token_file ? env_token_file : "";
  std::string token_option = "DICE_TOKEN_FILE";
  if (a.opts.count("--token-file")) {
    token_file = a.opts["--token-file"];
    token_option = "--token-file";
  }
  std::string token;
  if (!token_file.empty()) {
    try {
      token = dice::read_http_token_file(token_file, token_option);
    } catch (const std::exception& e) {
      return fail(e.what(), 2);
    }
  }
  const char* env_ca_file = std::getenv("DICE_CA_FILE");
  std::string ca_file = a.opts.count("--ca-file") ? a.opts["--ca-file"]
                        : env_ca_file             ? env_ca_file
                                                  : "";
  if (auto why = ca_file_problem(ca_file); !why.empty())
    return fail((a.opts.count("--ca-file") ? "--ca-file: " : "DICE_CA_FILE: ") + why, 2);
  client node{url, token, ca_file};
  auto& cmd = a.words[0];
  auto one_id = [&](const char* name) -> bool {
    if (a.words.size() == 2)
      return true;
    fail(std::string("usage: dice ") + name + " ID", 2);
    return false;
  };
  auto show = [&](const answer& r, auto text) {
    if (!r.ok())
      return fail(r.error);
    if (json)
      std::cout << r.body.dump() << "\n";
    else
      text(r.body);
    return 0;
  };
  if (cmd == "submit")
    return submit(node, a, json);
  if (cmd == "wait")
    return wait_command(node, a, json);
  if (cmd == "tasks")
    return list_tasks(node, a, json);
  if (cmd == "results")
    return results(node, a, json);
  if (cmd == "status") {
    if (!one_id("status"))
      return 2;
    return show(node.get("/tasks/" + a.words[1]),
                [](const nlohmann::json& b) { std::cout << task_text(b); });
  }
  if (cmd == "remove" || cmd == "cancel")
    return change_tasks(node, a, json);
  if (cmd == "retry")
    return retry_task(node, a, json);
  if (cmd == "drain" || cmd == "undrain")
    return drain_command(node, a, cmd == "undrain", json);
  if (cmd == "workflow")
    return workflow_command(node, a, json);
  if (cmd == "schedule")
    return schedule_command(node, a, json);
  if (cmd == "lock" || cmd == "locks")
    return lock_subcommand(node, a, json);
  if (cmd == "event") {
    long long count = 0;
    if (a.opts.count("--count") && !number(a.opts.at("--count"), 1, 1'000'000'000, count))
      return fail("--count must be a positive number", 2);
    long long since = 0;
    if (a.opts.count("--since") && !number(a.opts.at("--since"), 0, 1LL << 62, since))
      return fail("--since must be a delivery index (0 or more)", 2);
    return event_command(node, a.words, count, static_cast<std::uint64_t>(since),
                         json);
  }
  if (cmd == "keys")
    return keys_command(node, a, json);
  if (cmd == "leader")
    return show(node.get("/election"), print_leader);
  if (cmd == "nodes")
    return show(node.get("/nodes"), print_nodes);
  if (cmd == "stats")
    return show(node.get("/stats"),
                [](const nlohmann::json& b) { std::cout << stats_text(b); });
  if (cmd == "health")
    return show(node.get("/health"), [](const nlohmann::json& b) {
      std::cout << b.value("id", "") << " ok\n";
    });
  return fail("unknown command '" + cmd + "' (see dice --help)", 2);
}
