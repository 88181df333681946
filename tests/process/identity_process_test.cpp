// A node's identity and its sense of time, with real processes: a restart
// with the clock set back rejoins at once (libfaketime moves the restarted
// process's clock); a second node with a live node's id stops; a paused
// node (SIGSTOP) does not take its own pause for its peers' deaths.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <thread>

#include "cluster.hpp"

using namespace dice::test;

namespace {

/// While alive, processes started get their clock moved by `offset`
/// ("-1h"): libfaketime preloaded, as installed by scripts/setup.
class fake_clock {
public:
  explicit fake_clock(const std::string& offset) {
    const char* lib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
    if (!std::filesystem::exists(lib))
      FAIL("libfaketime is missing (scripts/setup installs faketime)");
    ::setenv("LD_PRELOAD", lib, 1);
    ::setenv("FAKETIME", offset.c_str(), 1);
  }
  ~fake_clock() {
    ::unsetenv("LD_PRELOAD");
    ::unsetenv("FAKETIME");
  }
};

int run_cli(cluster& c, const node_process& n,
            const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> argv = {"--node",
                                   "http://" + loopback(n.spec().http_port)};
  argv.insert(argv.end(), args.begin(), args.end());
  process cli(DICE_CLI_BIN, argv, c.dir().file(log));
  auto code = cli.wait_exit(millis(30000));
  UNSCOPED_INFO("dice " << log << ":\n" << cli.log());
  return code ? *code : -1;
}

} // namespace

TEST_CASE("a node restarted with its clock an hour behind its previous "
          "start rejoins within 2 s and takes work",
          "[process][identity]") {
  cluster c;
  auto& a = c.start(c.make_spec("clk-1"));
  auto b_spec = c.make_spec("clk-2");
  b_spec.peers = {a.spec().udp_addr()};
  c.start(b_spec);
  REQUIRE(wait_until([&] { return a.state_of("clk-2") == "alive"; },
                     millis(5000)));
  c[1].proc().kill_now();
  REQUIRE(wait_until([&] { return a.state_of("clk-2") == "dead"; },
                     millis(5000)));

  node_process* back = nullptr;
  {
    fake_clock behind("-1h");
    back = &c.start(b_spec);
  }
  INFO("logs:\n" << c.logs());
  CHECK(wait_until([&] { return a.state_of("clk-2") == "alive"
                                && back->state_of("clk-1") == "alive"; },
                   millis(2000)));
  // Its submits are replicated and run (refused with 503 while shut out).
  CHECK(run_cli(c, *back, {"submit", "echo", "hi", "--count", "4", "--wait",
                           "--timeout", "20"}, "behind.log") == 0);
}

/// The incarnation `observer` holds for `id` (/nodes), 0 if none.
static std::uint64_t incarnation_at(const node_process& observer, const std::string& id) {
  auto n = observer.nodes();
  if (!n || !n->contains("nodes"))
    return 0;
  for (auto& row : (*n)["nodes"])
    if (row.value("id", "") == id)
      return row.value("incarnation", std::uint64_t{0});
  return 0;
}

TEST_CASE("a node without a data dir restarted with its clock an hour behind "
          "its previous start rejoins within 2 s and takes work",
          "[process][identity]") {
  // Memory only, so its incarnation cannot come from a counter on disk:
  // its peer tells it which one it heard last.
  cluster c;
  auto& a = c.start(c.make_spec("mem-1"));
  auto b_spec = c.make_spec("mem-2");
  b_spec.data_dir.clear();
  b_spec.peers = {a.spec().udp_addr()};
  c.start(b_spec);
  REQUIRE(wait_until([&] { return a.state_of("mem-2") == "alive"; },
                     millis(5000)));
  auto before = incarnation_at(a, "mem-2");
  c[1].proc().kill_now();
  REQUIRE(wait_until([&] { return a.state_of("mem-2") == "dead"; },
                     millis(5000)));

  node_process* back = nullptr;
  {
    fake_clock behind("-1h");
    back = &c.start(b_spec);
  }
  INFO("logs:\n" << c.logs());
  CHECK(wait_until([&] { return a.state_of("mem-2") == "alive"
                                && back->state_of("mem-1") == "alive"; },
                   millis(2000)));
  CHECK(incarnation_at(a, "mem-2") > before);
  CHECK(run_cli(c, *back, {"submit", "echo", "hi", "--count", "4", "--wait",
                           "--timeout", "20"}, "behind.log") == 0);
}

TEST_CASE("a node without a data dir and without --peer, restarted with its "
          "clock an hour behind, rejoins within 2 s: a peer that still "
          "sends it heartbeats is asked",
          "[process][identity]") {
  cluster c;
  auto a_spec = c.make_spec("lone-1");
  a_spec.data_dir.clear();
  auto& a = c.start(a_spec);
  auto b_spec = c.make_spec("lone-2");
  b_spec.peers = {a.spec().udp_addr()};
  auto& b = c.start(b_spec);
  REQUIRE(wait_until([&] { return b.state_of("lone-1") == "alive"; },
                     millis(5000)));
  c[0].proc().kill_now();
  REQUIRE(wait_until([&] { return b.state_of("lone-1") == "dead"; },
                     millis(5000)));

  node_process* back = nullptr;
  {
    fake_clock behind("-1h");
    back = &c.start(a_spec);
  }
  INFO("logs:\n" << c.logs());
  CHECK(wait_until([&] { return b.state_of("lone-1") == "alive"
                                && back->state_of("lone-2") == "alive"; },
                   millis(2000)));
  // The peer it asked says so.
  auto stats = b.stats();
  REQUIRE(stats);
  CHECK((*stats)["wire"].value("incarnation_probes_answered", 0) >= 1);
}

TEST_CASE("a second node started with the id of a live node stops at once "
          "with one line naming the holder, the first keeps its place",
          "[process][identity]") {
  cluster c;
  auto& seed = c.start(c.make_spec("dup-seed"));
  auto first_spec = c.make_spec("dup");
  first_spec.peers = {seed.spec().udp_addr()};
  auto& first = c.start(first_spec);
  REQUIRE(wait_until([&] { return seed.state_of("dup") == "alive"; },
                     millis(5000)));

  auto twin = c.make_spec("dup"); // other ports
  twin.peers = {seed.spec().udp_addr()};
  twin.data_dir = c.dir().file("data-dup-twin");
  auto r = run_node_to_exit(twin.args(), c.dir(), "twin.log", millis(10000));
  INFO("twin:\n" << r.output << "\nlogs:\n" << c.logs());
  REQUIRE(r.exit_code);
  CHECK(*r.exit_code == 1);
  CHECK(r.output.find("node id 'dup' is in use by a live node at "
                      + first.spec().udp_addr())
        != std::string::npos);

  // The first was never cut off: alive at the seed, and its work runs.
  CHECK(seed.state_of("dup") == "alive");
  auto stats = seed.stats();
  REQUIRE(stats);
  CHECK((*stats)["membership"]["ids_refused"].get<int>() >= 1);
  CHECK(run_cli(c, first, {"submit", "echo", "hi", "--count", "4", "--wait",
                           "--timeout", "20"}, "first.log") == 0);
  CHECK(wait_until([&] { return first.state_of("dup-seed") == "alive"; },
                   millis(2000)));
}

TEST_CASE("a node paused for 3 s (SIGSTOP) judges nobody dead on resume and "
          "re-queues no task running elsewhere",
          "[process][identity]") {
  cluster c;
  // Most of the work runs on the two nodes that are not paused.
  auto first = c.make_spec("ps-1");
  first.extra_args = {"--slots", "1", "--prefetch", "0"};
  auto& n1 = c.start(first);
  for (auto id : {"ps-2", "ps-3"}) {
    auto spec = c.make_spec(id);
    spec.peers = {n1.spec().udp_addr()};
    spec.extra_args = {"--slots", "3"};
    c.start(spec);
  }
  REQUIRE(wait_until([&] { return n1.alive_count() == 3
                                  && c[2].alive_count() == 3; },
                     millis(5000)));
  // Long tasks running on every node while ps-1 is stopped.
  process cli(DICE_CLI_BIN,
              {"--node", "http://" + loopback(c[1].spec().http_port), "--json",
               "submit", "sleep", "5000", "--count", "6", "--wait",
               "--timeout", "60"},
              c.dir().file("cli.log"));
  // Wait until the six are held by nodes (running, or claimed ahead of a
  // slot), and note those held by the other nodes.
  std::vector<std::string> elsewhere;
  REQUIRE(wait_until([&] {
    auto all = get_json(c[1].spec().http_port, "/tasks");
    if (!all)
      return false;
    std::size_t held = 0;
    elsewhere.clear();
    for (auto& t : (*all)["tasks"]) {
      if (t["state"] != "running" && t["state"] != "claimed")
        continue;
      ++held;
      if (t["node"] != "ps-1")
        elsewhere.push_back(t["id"]);
    }
    return held == 6;
  }, millis(10000)));
  REQUIRE(elsewhere.size() >= 3);
  ::kill(n1.proc().pid(), SIGSTOP);
  std::this_thread::sleep_for(millis(3000));
  ::kill(n1.proc().pid(), SIGCONT);

  auto code = cli.wait_exit(millis(60000));
  INFO("cli:\n" << cli.log() << "\nlogs:\n" << c.logs());
  REQUIRE(code);
  CHECK(*code == 0);
  auto s = n1.stats();
  REQUIRE(s);
  CHECK((*s)["membership"]["pauses"].get<int>() >= 1);
  CHECK((*s)["queue"]["requeues"].get<int>() == 0);
  CHECK((*s)["queue"]["recoveries"].get<int>() == 0);
  // What ran on the healthy nodes ran once. (ps-1's own executions went
  // silent for 3 s: the others rightly ran them again.)
  for (auto& id : elsewhere) {
    auto t = get_json(c[1].spec().http_port, "/tasks/" + id);
    REQUIRE(t);
    CHECK((*t)["state"] == "done");
    CHECK((*t)["attempts"] == 1);
  }
  CHECK(n1.proc().log().find("-> dead") == std::string::npos);
}
