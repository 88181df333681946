// Seeing the cluster from outside, with real processes: Prometheus' own
// checker accepts GET /metrics and its numbers move as work runs; headless
// Chromium shows the dashboard with the members and counts; the dice CLI
// prints tables for people and takes what users give it.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>

#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;

namespace {

struct ran {
  std::optional<int> code;
  std::string output;
};

// Runs a program to its end (bounded), its output in a log of the cluster.
ran run(cluster& c, const std::string& program, const std::vector<std::string>& args,
        const std::string& log, millis timeout = millis(60000)) {
  process p(program, args, c.dir().file(log));
  auto code = p.wait_exit(timeout);
  if (!code)
    p.kill_now();
  return {code, p.log()};
}

ran sh(cluster& c, const std::string& script, const std::string& log,
       millis timeout = millis(60000)) {
  return run(c, "/bin/sh", {"-c", script}, log, timeout);
}

// The value of one sample line of an exposition, or -1 if it is absent.
double sample(const std::string& text, const std::string& series) {
  auto at = text.find("\n" + series + " ");
  if (at == std::string::npos)
    return -1;
  return std::stod(text.substr(at + series.size() + 2));
}


std::vector<std::string> submit(cluster& c, node_process& n, const std::string& kind,
                                const std::string& payload, int count) {
  auto r = run(c, DICE_CLI_BIN,
               {"--node", url_of(n), "--json", "submit", kind, payload, "--count",
                std::to_string(count), "--wait", "--timeout", "60"},
               "submit.log", millis(70000));
  INFO(r.output);
  REQUIRE(r.code == 0);
  return last_json_line(r.output)["ids"].get<std::vector<std::string>>();
}

cluster& three(cluster& c) {
  auto& first = c.start(c.make_spec("obs-1"));
  for (auto id : {"obs-2", "obs-3"}) {
    auto spec = c.make_spec(id);
    spec.peers = {first.spec().udp_addr()};
    c.start(spec);
  }
  REQUIRE(wait_until([&] {
    for (auto& n : c.nodes())
      if (n->alive_count() != 3)
        return false;
    return true;
  }, millis(10000)));
  return c;
}

} // namespace

TEST_CASE("GET /metrics passes promtool and its numbers move as work runs",
          "[process][metrics]") {
  cluster c;
  three(c);
  auto& n = c[0];
  auto scrape = [&](const std::string& file) {
    auto r = http_get(n.spec().http_port, "/metrics", millis(3000));
    REQUIRE(r.status == 200);
    std::ofstream(c.dir().file(file)) << r.body;
    // Prometheus' own checker: format, HELP/TYPE, counter names.
    auto check = sh(c, "promtool check metrics < " + c.dir().file(file),
                    file + ".promtool");
    INFO("promtool (from Debian's prometheus package, see scripts/setup):\n"
         << check.output << "\nexposition:\n" << r.body);
    CHECK(check.code == 0);
    return r.body;
  };
  auto before = scrape("before.prom");
  CHECK(sample(before, R"(dice_members{state="alive"})") == 3);
  CHECK(sample(before, R"(dice_tasks{state="done"})") == 0);
  CHECK(sample(before, "dice_tasks_submitted_total") == 0);
  CHECK(before.find("dice_election_state{algorithm=\"bully\"") != std::string::npos);

  submit(c, n, "echo", "hi", 40);
  REQUIRE(wait_until([&] { return n.stats() && (*n.stats())["tasks"]["done"] == 40; },
                     millis(10000)));
  // Two causal events published at another node, delivered here too.
  for (int i = 0; i < 2; ++i)
    REQUIRE(run(c, DICE_CLI_BIN, {"--node", url_of(c[1]), "event", "publish",
                                  "deploys", "v" + std::to_string(i)},
                "publish.log", millis(10000)).code == 0);
  REQUIRE(wait_until([&] {
    auto s = n.stats();
    return s && (*s)["events"]["delivered"] == 2;
  }, millis(10000)));
  auto after = scrape("after.prom");
  CHECK(sample(before, R"(dice_events_total{outcome="delivered"})") == 0);
  CHECK(sample(after, R"(dice_events_total{outcome="delivered"})") == 2);
  CHECK(sample(after, R"(dice_events_total{outcome="published"})") == 0);
  CHECK(sample(after, "dice_events_held") == 0);
  CHECK(sample(after, R"(dice_tasks{state="done"})") == 40);
  CHECK(sample(after, "dice_tasks_submitted_total") == 40);
  CHECK(sample(after, R"(dice_http_requests_total{code="201",method="POST",route="/tasks"})") == 1);
  CHECK(sample(after, R"(dice_http_request_duration_seconds_count{method="POST",route="/tasks"})") == 1);
  CHECK(sample(after, R"(dice_datagrams_total{direction="sent"})")
        > sample(before, R"(dice_datagrams_total{direction="sent"})"));
  // Per family: heartbeats flowed from the start; the 40 ENQUEUEs went out
  // from this node and the others' claims and completions came back.
  CHECK(sample(before, R"(dice_messages_total{direction="received",kind="membership"})") > 0);
  CHECK(sample(before, R"(dice_message_bytes_total{direction="sent",kind="membership"})") > 0);
  for (auto dir : {"sent", "received"}) {
    INFO(dir);
    auto messages = std::string(R"(dice_messages_total{direction=")") + dir + R"(",kind="queue"})";
    auto bytes = std::string(R"(dice_message_bytes_total{direction=")") + dir + R"(",kind="queue"})";
    CHECK(sample(after, messages) > sample(before, messages));
    CHECK(sample(after, bytes) > sample(before, bytes));
  }
  CHECK(sample(after, R"(dice_messages_total{direction="sent",kind="queue"})") >= 40);
  // The coordinator is one of the three, and every node names the same.
  std::smatch m;
  REQUIRE(std::regex_search(after, m, std::regex(R"re(dice_coordinator\{coordinator="([^"]+)"\} 1)re")));
  CHECK(m[1] == "obs-3");
}

TEST_CASE("the dashboard shows the members, the coordinator and the counts "
          "of a 3-node cluster in headless Chromium",
          "[process][dashboard]") {
  cluster c;
  three(c);
  auto& n = c[1];
  submit(c, n, "echo", "hi", 30);
  REQUIRE(wait_until([&] { return n.stats() && (*n.stats())["tasks"]["done"] == 30; },
                     millis(10000)));
  auto root = http_get(n.spec().http_port, "/");
  CHECK(root.status == 302);
  auto page = http_get(n.spec().http_port, "/ui");
  REQUIRE(page.status == 200);
  CHECK(page.body.find("<title>DiCE dashboard</title>") != std::string::npos);

  // A task that fails: stopped at its time limit, with no retry.
  auto sent = run(c, DICE_CLI_BIN,
                  {"--node", url_of(n), "--json", "submit", "sleep", "60000",
                   "--time-limit", "100ms", "--retries", "0"},
                  "submit-failing.log", millis(10000));
  REQUIRE(sent.code == 0);
  auto failing = last_json_line(sent.output)["ids"].get<std::vector<std::string>>();
  REQUIRE(failing.size() == 1);
  REQUIRE(wait_until([&] { return n.stats() && (*n.stats())["tasks"]["failed"] == 1; },
                     millis(15000)));

  // --virtual-time-budget lets the page's polls run before the DOM is dumped.
  auto load = [&](const std::string& name) {
    return run(c, "/usr/bin/chromium",
               {"--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=" + c.dir().file("chromium-" + name),
                "--virtual-time-budget=8000", "--dump-dom", url_of(n) + "/ui"},
               name + ".log", millis(90000));
  };
  auto dom = load("chromium");
  INFO("chromium (Debian's chromium package, see scripts/setup):\n" << dom.output);
  REQUIRE(dom.code == 0);
  // The failure is in the table of recent failures, with its reason.
  std::smatch failure;
  CHECK(std::regex_search(
    dom.output, failure,
    std::regex("<tr><td>" + failing[0] + "</td><td>sleep</td><td>[^<]+</td><td>\\d+</td>"
               "<td>time limit of 100 ms exceeded</td></tr>")));
  CHECK(dom.output.find("<span class=\"value\" id=\"count-failed\">1</span>")
        != std::string::npos);
  for (auto id : {"obs-1", "obs-2", "obs-3"})
    CHECK(dom.output.find("<td class=\"member-id\">" + std::string(id) + "</td>")
          != std::string::npos);
  CHECK(dom.output.find("<b id=\"self\">obs-2</b>") != std::string::npos);
  CHECK(dom.output.find("<b id=\"coordinator\">obs-3</b>") != std::string::npos);
  CHECK(dom.output.find("<span class=\"value\" id=\"count-done\">30</span>")
        != std::string::npos);
  // Claimed ahead of a slot, apart from running: none is left.
  CHECK(dom.output.find("<span class=\"value\" id=\"count-claimed\">0</span>")
        != std::string::npos);
  CHECK(dom.output.find("<td class=\"member-claimed\">0</td>") != std::string::npos);
  // Tasks per node: the bars add up to the 30 done.
  std::regex bar(R"(<div class="bar" data-node="[^"]+">.*?<span class="count">(\d+)</span>)");
  int total = 0;
  for (auto it = std::sregex_iterator(dom.output.begin(), dom.output.end(), bar);
       it != std::sregex_iterator(); ++it)
    total += std::stoi((*it)[1]);
  CHECK(total == 30);
  CHECK(dom.output.find("status error") == std::string::npos);

  // More work, and the page loaded again shows the new count: it draws the
  // cluster as it is, not a picture taken once.
  submit(c, n, "echo", "again", 10);
  REQUIRE(wait_until([&] { return n.stats() && (*n.stats())["tasks"]["done"] == 40; },
                     millis(10000)));
  auto later = load("chromium-later");
  REQUIRE(later.code == 0);
  CHECK(later.output.find("<span class=\"value\" id=\"count-done\">40</span>")
        != std::string::npos);
}

TEST_CASE("the dice CLI: tables for people, numeric id order, pages, bulk "
          "results, payload files, full error messages",
          "[process][cli]") {
  cluster c;
  auto& n = c.start(c.make_spec("cli-1"));
  auto url = url_of(n);
  auto dice = [&](std::vector<std::string> args, const std::string& log) {
    args.insert(args.begin(), {"--node", url});
    return run(c, DICE_CLI_BIN, args, log);
  };
  auto ids = submit(c, n, "echo", "hi", 12);
  REQUIRE(ids.size() == 12);

  SECTION("stats and status print text, JSON only with --json") {
    auto stats = dice({"stats"}, "stats.log");
    REQUIRE(stats.code == 0);
    CHECK(stats.output.rfind("node cli-1\n", 0) == 0);
    CHECK(stats.output.find("\ntasks\n") != std::string::npos);
    CHECK(std::regex_search(stats.output, std::regex(R"(\n  done +12\n)")));
    auto status = dice({"status", ids[0]}, "status.log");
    REQUIRE(status.code == 0);
    CHECK(status.output.find("state:     done\n") != std::string::npos);
    CHECK(status.output.find("result:    hi\n") != std::string::npos);
    CHECK(std::regex_search(status.output, std::regex(R"(finished: +\d{4}-\d\d-\d\d .* UTC)")));
    auto json = dice({"--json", "stats"}, "stats-json.log");
    CHECK(nlohmann::json::parse(json.output, nullptr, false)["tasks"]["done"] == 12);
  }
  SECTION("tasks: ids in numeric order, filters, pages") {
    auto all = dice({"tasks"}, "tasks.log");
    REQUIRE(all.code == 0);
    std::vector<std::string> shown;
    std::regex row(R"(\n(\S+-\d+) +echo +done)");
    for (auto it = std::sregex_iterator(all.output.begin(), all.output.end(), row);
         it != std::sregex_iterator(); ++it)
      shown.push_back((*it)[1]);
    CHECK(shown == ids); // the node numbers its ids 1, 2, ... 12
    auto page = dice({"tasks", "--limit", "5", "--after", ids[4]}, "page.log");
    REQUIRE(page.code == 0);
    CHECK(page.output.find(ids[5]) != std::string::npos);
    CHECK(page.output.find(ids[9]) != std::string::npos);
    CHECK(page.output.find(ids[10] + " ") == std::string::npos);
    CHECK(page.output.find("(more: --after " + ids[9] + ")") != std::string::npos);
    auto none = dice({"--json", "tasks", "--kind", "sleep"}, "kind.log");
    CHECK(nlohmann::json::parse(none.output, nullptr, false)["tasks"].empty());
    auto on = dice({"--json", "tasks", "--on", "cli-1", "--state", "done"}, "on.log");
    CHECK(nlohmann::json::parse(on.output, nullptr, false)["tasks"].size() == 12);
    auto typo = dice({"tasks", "--limit", "0"}, "typo.log");
    CHECK(typo.code == 1);
    CHECK(typo.output.find("limit must be an integer from 1 to 10000") != std::string::npos);
  }
  SECTION("results of many tasks at once, ids from arguments or stdin") {
    auto r = dice({"results", ids[0], ids[11], "nope-1"}, "results.log");
    CHECK(r.code == 1);
    CHECK(std::regex_search(r.output, std::regex(ids[0] + R"( +done +hi\n)")));
    CHECK(std::regex_search(r.output, std::regex(ids[11] + R"( +done +hi\n)")));
    CHECK(r.output.find("1 of 3 ids are unknown to the node: nope-1") != std::string::npos);
    std::string list;
    for (auto& id : ids)
      list += id + "\n";
    auto in = sh(c, "printf '" + list + "' | " DICE_CLI_BIN " --node " + url
                 + " --json results -", "results-stdin.log");
    REQUIRE(in.code == 0);
    CHECK(last_json_line(in.output)["tasks"].size() == 12);
  }
  SECTION("a payload from a file or stdin") {
    auto file = c.dir().write("payload.txt", "from a file");
    auto r = dice({"--json", "submit", "echo", "--payload-file", file, "--wait"},
                  "payload.log");
    REQUIRE(r.code == 0);
    auto id = last_json_line(r.output)["ids"][0].get<std::string>();
    auto t = get_json(n.spec().http_port, "/tasks/" + id);
    REQUIRE(t);
    CHECK((*t)["result"] == "from a file");
    auto in = sh(c, "printf 'from stdin' | " DICE_CLI_BIN " --node " + url
                 + " --json submit echo --payload-file - --wait", "stdin.log");
    REQUIRE(in.code == 0);
    id = last_json_line(in.output)["ids"][0].get<std::string>();
    CHECK((*get_json(n.spec().http_port, "/tasks/" + id))["result"] == "from stdin");
    auto missing = dice({"submit", "echo", "--payload-file", c.dir().file("nope")},
                        "missing.log");
    CHECK(missing.code == 2);
    CHECK(missing.output.find("--payload-file: cannot read") != std::string::npos);
  }
  SECTION("a node that is not there: the whole reason") {
    auto r = run(c, DICE_CLI_BIN,
                 {"--node", "http://" + loopback(free_port(false)), "health"},
                 "gone.log");
    CHECK(r.code == 1);
    CHECK(r.output.find("connection failed (is a dice-node serving its HTTP API "
                        "there? see --node or $DICE_NODE)")
          != std::string::npos);
  }
  SECTION("the API as curl uses it: cancel without a body, a body of "
          "curl -d's form type up to 256 KiB") {
    auto curl = [&](const std::string& args, const std::string& log) {
      auto r = sh(c, "curl -s -o " + c.dir().file(log + ".body")
                       + " -w '%{http_code}' " + args, log, millis(15000));
      std::ifstream in(c.dir().file(log + ".body"));
      std::string body((std::istreambuf_iterator<char>(in)), {});
      return std::pair{r.output, body};
    };
    auto [ended, why] = curl("-X POST " + url + "/tasks/" + ids[0] + "/cancel", "cancel");
    CHECK(ended == "409"); // found; it has ended already, and says how
    CHECK(why.find("cannot be canceled: it is done") != std::string::npos);
    auto [unknown, body] = curl("-X POST " + url + "/tasks/nope-1/cancel", "unknown");
    CHECK(unknown == "404");
    CHECK(body.find("no task nope-1") != std::string::npos);
    auto file = c.dir().write("big.json", R"({"kind":"echo","payload":")"
                                            + std::string(20 * 1024, 'x') + "\"}");
    auto [big, answer] = curl("-d @" + file + " " + url + "/tasks", "big");
    CHECK(big == "201");
    INFO(answer);
    CHECK(answer.find("\"ids\"") != std::string::npos);
  }
}
