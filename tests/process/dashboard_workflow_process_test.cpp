// The dashboard draws a workflow, with real processes: two nodes run a
// chain with a fan-out and a fan-in, headless Chromium loads the page with
// the workflow in its URL, and the DOM holds one box per step in its layer,
// with its name, its tasks and their states, and an edge from each parent
// step to its children; loaded while the first step still runs, it shows
// that step running and the others waiting.
#include <map>
#include <regex>
#include <set>

#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;

namespace {

// a (one task), then b (a fan-out of three after a), then c (after b).
nlohmann::json chain_with_fan(const std::string& first_kind, const std::string& first_payload) {
  return {{"steps",
           {{{"name", "a"}, {"kind", first_kind}, {"payload", first_payload}},
            {{"name", "b"}, {"kind", "sleep"}, {"payloads", {"100", "100", "100"}},
             {"after", {"a"}}},
            {{"name", "c"}, {"kind", "echo"}, {"payload", "end"}, {"after", {"b"}}}}}};
}

struct page {
  std::optional<int> code;
  std::string dom;
};

// The dashboard of `n` as headless Chromium leaves it once the page's polls
// have run (--virtual-time-budget), at /ui#`fragment`.
page load(cluster& c, node_process& n, const std::string& fragment, const std::string& name) {
  process p("/usr/bin/chromium",
            {"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--user-data-dir=" + c.dir().file("chromium-" + name),
             "--virtual-time-budget=8000", "--dump-dom", url_of(n) + "/ui#" + fragment},
            c.dir().file(name + ".log"));
  auto code = p.wait_exit(millis(90000));
  if (!code)
    p.kill_now();
  return {code, p.log()};
}

// One drawn step: the attributes of its <g> and the text inside it.
struct box {
  std::string state, shown; // the API's state; the one drawn (its rect's class)
  int layer = -1, tasks = -1;
  double x = -1, y = -1;
  std::string name, summary, counts;
};

std::map<std::string, box> boxes_of(const std::string& dom) {
  std::map<std::string, box> boxes;
  std::regex g(R"re(<g class="step[^"]*" data-step="([^"]+)" data-state="([^"]+)" )re"
               R"re(data-layer="(\d+)" data-tasks="(\d+)" transform="translate\(([\d.]+),([\d.]+)\)">)re"
               R"re((.*?)</g>)re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), g);
       it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    box b;
    b.state = m[2];
    b.layer = std::stoi(m[3]);
    b.tasks = std::stoi(m[4]);
    b.x = std::stod(m[5]);
    b.y = std::stod(m[6]);
    std::string inner = m[7];
    std::smatch t;
    if (std::regex_search(inner, t, std::regex(R"re(<rect class="box state-([a-z]+)")re")))
      b.shown = t[1];
    if (std::regex_search(inner, t, std::regex(R"re(<text class="name"[^>]*>([^<]*)</text>)re")))
      b.name = t[1];
    if (std::regex_search(inner, t, std::regex(R"re(<text class="summary"[^>]*>([^<]*)</text>)re")))
      b.summary = t[1];
    if (std::regex_search(inner, t, std::regex(R"re(<text class="counts"[^>]*>([^<]*)</text>)re")))
      b.counts = t[1];
    CHECK(boxes.count(m[1]) == 0); // one box per step
    boxes[m[1]] = b;
  }
  return boxes;
}

// The edges drawn, "from->to" in order, comma-separated.
std::string edges_of(const std::string& dom) {
  std::set<std::string> edges;
  std::regex e(R"re(<path class="edge" data-from="([^"]+)" data-to="([^"]+)")re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), e);
       it != std::sregex_iterator(); ++it)
    edges.insert((*it)[1].str() + "->" + (*it)[2].str());
  std::string list;
  for (const auto& e : edges)
    list += (list.empty() ? "" : ",") + e;
  return list;
}

} // namespace

TEST_CASE("the dashboard draws a workflow: a box per step in its layer with "
          "its state and counts, and the edges between steps, in headless Chromium",
          "[process][dashboard][workflows]") {
  cluster c;
  auto specs = seeded_specs(c, {"wfd-1", "wfd-2"});
  auto& n1 = c.start(specs[0]);
  auto& n2 = c.start(specs[1]);
  REQUIRE(wait_until([&] { return n1.alive_count() == 2 && n2.alive_count() == 2; },
                     millis(8000)));

  auto done = submit_workflow(n1, chain_with_fan("echo", "start"));
  auto done_id = done["workflow"].get<std::string>();
  REQUIRE(wait_until([&] {
    auto w = n2.get_json("/workflows/" + done_id);
    return w && (*w)["state"] == "done";
  }, millis(20000)));
  INFO("node logs:\n" << c.logs());

  // The listing the page reads: the workflow, whole.
  auto list = n2.get_json("/workflows");
  REQUIRE(list);
  REQUIRE((*list)["workflows"].size() == 1);
  CHECK((*list)["total"] == 1);
  CHECK((*list)["workflows"][0]["id"] == done_id);
  CHECK((*list)["workflows"][0]["state"] == "done");
  CHECK((*list)["workflows"][0]["steps"] == 3);
  CHECK((*list)["workflows"][0]["tasks"] == 5);
  CHECK((*list)["workflows"][0]["counts"] == nlohmann::json{{"done", 5}});
  CHECK(n2.get("/workflows?limit=0").status == 400);
  CHECK(n2.get("/workflows?state=done").status == 400);

  {
    auto p = load(c, n2, "workflow=" + done_id + "&step=b", "done");
    INFO("chromium (Debian's chromium package, see scripts/setup):\n" << p.dom);
    REQUIRE(p.code == 0);
    CHECK(p.dom.find("status error") == std::string::npos);
    // The list of recent workflows shows it, selected.
    CHECK(std::regex_search(p.dom, std::regex(
      "<tr class=\"workflow selected\" data-id=\"" + done_id + "\"><td><a href=\"#workflow="
      + done_id + "\">" + done_id + "</a></td><td class=\"state-done\">done</td>"
      "<td>3</td><td>5</td><td>done 5</td>")));
    CHECK(p.dom.find("<span id=\"workflow-id\">" + done_id + "</span>") != std::string::npos);

    auto boxes = boxes_of(p.dom);
    REQUIRE(boxes.size() == 3);
    REQUIRE(boxes.count("a") == 1);
    REQUIRE(boxes.count("b") == 1);
    REQUIRE(boxes.count("c") == 1);
    for (auto& [step, b] : boxes) {
      CHECK(b.name == step);
      CHECK(b.state == "done");
      CHECK(b.shown == "done");
    }
    CHECK(boxes["a"].layer == 0);
    CHECK(boxes["b"].layer == 1);
    CHECK(boxes["c"].layer == 2);
    CHECK(boxes["a"].tasks == 1);
    CHECK(boxes["b"].tasks == 3);
    CHECK(boxes["c"].tasks == 1);
    CHECK(boxes["a"].summary == "1 task, done");
    CHECK(boxes["b"].summary == "3 tasks, done");
    CHECK(boxes["b"].counts == "done 3");
    CHECK(boxes["c"].counts == "done 1");
    // Layers run left to right.
    CHECK(boxes["a"].x < boxes["b"].x);
    CHECK(boxes["b"].x < boxes["c"].x);
    CHECK(edges_of(p.dom) == "a->b,b->c");
    // The step named in the URL is outlined, and its three tasks listed.
    CHECK(p.dom.find("<g class=\"step shown\" data-step=\"b\"") != std::string::npos);
    CHECK(p.dom.find("<span id=\"workflow-step\">b</span>") != std::string::npos);
    REQUIRE(done["steps"]["b"].size() == 3);
    for (const auto& id : done["steps"]["b"])
      CHECK(std::regex_search(p.dom, std::regex(
        "<tr><td>" + id.get<std::string>()
        + "</td><td class=\"state-done\">done</td><td>wfd-[12]</td>")));
    CHECK(p.dom.find("<td>" + done["steps"]["a"][0].get<std::string>() + "</td>")
          == std::string::npos);
  }

  {
    // A second workflow whose first step sleeps a minute: loaded while it
    // runs, the page shows it running and the steps after it waiting.
    auto running_id = submit_workflow(n1, chain_with_fan("sleep", "60000"))["workflow"]
                        .get<std::string>();
    REQUIRE(wait_until([&] {
      auto w = n2.get_json("/workflows/" + running_id);
      return w && (*w)["steps"][0]["name"] == "a" && (*w)["steps"][0]["state"] == "running";
    }, millis(10000)));
    auto p = load(c, n2, "workflow=" + running_id, "running");
    INFO("chromium:\n" << p.dom);
    REQUIRE(p.code == 0);
    CHECK(p.dom.find("status error") == std::string::npos);
    // Both workflows are listed, the newer first.
    auto newer = p.dom.find("data-id=\"" + running_id + "\"");
    auto older = p.dom.find("data-id=\"" + done_id + "\"");
    CHECK(newer != std::string::npos);
    CHECK(older != std::string::npos);
    CHECK(newer < older);
    CHECK(p.dom.find("<td class=\"state-running\">running</td>") != std::string::npos);

    auto boxes = boxes_of(p.dom);
    REQUIRE(boxes.size() == 3);
    CHECK(boxes["a"].state == "running");
    CHECK(boxes["a"].shown == "running");
    CHECK(boxes["a"].summary == "1 task, running");
    CHECK(boxes["a"].counts == "running 1");
    for (const char* step : {"b", "c"}) {
      CHECK(boxes[step].state == "ready");
      CHECK(boxes[step].shown == "waiting");
    }
    CHECK(boxes["b"].summary == "3 tasks, waiting");
    CHECK(boxes["b"].counts == "ready 3");
    CHECK(boxes["a"].layer == 0);
    CHECK(boxes["b"].layer == 1);
    CHECK(boxes["c"].layer == 2);
    CHECK(edges_of(p.dom) == "a->b,b->c");
    // No step in the URL: no step's tasks are listed.
    CHECK(p.dom.find("<table id=\"workflow-tasks\" hidden=\"\">") != std::string::npos);

    // An unknown workflow in the URL: the page says so, and draws nothing.
    auto gone = load(c, n2, "workflow=wf-000000000000000000000000", "unknown");
    REQUIRE(gone.code == 0);
    CHECK(gone.dom.find("<p id=\"workflow-error\" class=\"error\">no workflow "
                        "wf-000000000000000000000000</p>")
          != std::string::npos);
    CHECK(boxes_of(gone.dom).empty());
  }
}
