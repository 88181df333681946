// An application that embeds a DiCE node in its own CAF actor system, adds
// task kinds of its own (functions and an actor), submits tasks (some
// holding a cluster-wide lock) and follows them to their end through task
// events, and publishes a causal event that it hears back.
//
// Usage: dice-embed-example [--listen HOST:PORT] [--peer HOST:PORT]...
//                           [--project DIR]
// Alone it is a one-node cluster; give it the address of a running
// dice-node (--peer) and the work may run there too, if that node knows
// the kinds (only `echo` is built in everywhere). With --project it also
// runs the tests of a pytest project there as an evaluation (dice test)
// and prints the report's totals.
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>

#include <nlohmann/json.hpp>

#include "dice/dice.hpp"

namespace {

// The actor kind: upper-cases its payload; refuses an empty one.
caf::behavior shouter(caf::event_based_actor*) {
  return {
    [](const std::string& kind, const std::string& payload) -> caf::result<std::string> {
      if (payload.empty())
        return caf::make_error(caf::sec::invalid_argument, kind + ": nothing to shout");
      std::string out = payload;
      for (auto& c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return out;
    },
  };
}

// The function kind: counts the words of its payload.
dice::embed::outcome count_words(const std::string& payload,
                                 const std::function<bool()>& canceled) {
  if (canceled())
    return dice::embed::outcome::failure("canceled");
  std::istringstream in(payload);
  std::size_t n = 0;
  for (std::string w; in >> w;)
    ++n;
  return dice::embed::outcome::success(std::to_string(n));
}

// A kind whose tasks must not overlap (say, they append to one ledger file):
// submitted with a lock, each finds itself alone however many slots run.
std::atomic<int> in_ledger{0};
dice::embed::outcome append_to_ledger(const std::string&,
                                      const std::function<bool()>&) {
  int inside = ++in_ledger;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  --in_ledger;
  return inside == 1 ? dice::embed::outcome::success("alone")
                     : dice::embed::outcome::failure("overlapped another");
}

// Results are bytes: show the unprintable ones as \xNN.
std::string printable(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (std::isprint(c)) {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

// dice test from code: the project's tests as an evaluation, followed
// until its report says done.
bool run_evaluation(dice::embed::node& node, const std::string& project) {
  auto id = node.submit_evaluation(project, {});
  for (int i = 0; i < 600; ++i) {
    auto text = node.evaluation_report(id);
    auto report = nlohmann::json::parse(text.value_or("{}"));
    if (report.value("state", "") == "done") {
      auto& t = report["totals"];
      std::cout << "evaluation: " << report["modules_total"] << " modules, " << t["tests"]
                << " tests, " << t["passed"] << " passed, " << t["failed"] << " failed"
                << std::endl;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::cout << "evaluation: not done in 60 s" << std::endl;
  return false;
}

} // namespace

int main(int argc, char** argv) {
  dice::embed::options opts;
  opts.id = "embedded-1";
  opts.listen = "127.0.0.1:0"; // any free port
  opts.slots = 3; // the ledger tasks could overlap, but for their lock
  std::string project;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--listen")
      opts.listen = argv[i + 1];
    else if (flag == "--peer")
      opts.peers.push_back(argv[i + 1]);
    else if (flag == "--project")
      project = argv[i + 1];
    else {
      std::cerr << "usage: dice-embed-example [--listen HOST:PORT] [--peer HOST:PORT]..."
                   " [--project DIR]\n";
      return 2;
    }
  }
  opts.tester = !project.empty(); // this node runs test modules too

  caf::actor_system_config cfg;
  dice::embed::prepare(cfg);
  caf::actor_system sys{cfg};
  try {
    dice::embed::node node{sys, opts};
    node.add_kind("wordcount", count_words);
    node.add_actor_kind("shout", sys.spawn(shouter));
    node.add_kind("ledger", append_to_ledger);
    std::mutex out_mtx;
    std::condition_variable heard_cv;
    bool heard = false;
    node.on_message("greetings", [&](const dice::embed::message& m) {
      std::lock_guard<std::mutex> guard{out_mtx};
      std::cout << "message: " << m.topic << " '" << m.data << "' from "
                << m.origin << " #" << m.seq << "\n";
      heard = true;
      heard_cv.notify_all();
    });
    node.on_event([&](const dice::embed::task_event& ev) {
      std::lock_guard<std::mutex> guard{out_mtx};
      std::cout << "event: " << ev.id << " " << ev.kind << " " << ev.state
                << (ev.node.empty() ? "" : " on " + ev.node) << "\n";
    });
    node.start();
    std::cout << "node " << node.id() << " at " << node.address() << ", kinds:";
    for (auto& k : node.kinds())
      std::cout << " " << k;
    std::cout << std::endl;

    std::vector<dice::embed::task> work = {
      {"wordcount", "the quick brown fox", 5, {{"embedded-1", 2}}, {}},
      {"shout", "hello from an embedded node", 1, {}, {}},
      {"shout", "", 0, {}, {}}, // the actor refuses it: FAILED with its reason
      {"echo", std::string("bytes\0ok", 8), 0, {}, {}},
      // Three at once, one lock: they run one after the other.
      {"ledger", "entry 1", 0, {}, {"ledger"}},
      {"ledger", "entry 2", 0, {}, {"ledger"}},
      {"ledger", "entry 3", 0, {}, {"ledger"}},
    };
    std::vector<std::string> ids;
    for (auto& t : work)
      ids.push_back(node.submit(t));
    int failed = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      auto end = node.await(ids[i], std::chrono::seconds(30));
      std::lock_guard<std::mutex> guard{out_mtx};
      if (!end) {
        std::cout << "result: " << work[i].kind << " did not end in 30 s\n";
        return 1;
      }
      if (end->state == "done")
        std::cout << "result: " << work[i].kind << " -> '" << printable(end->result)
                  << "' (" << end->result.size() << " bytes, ready to start "
                  << end->started_at_ms - end->ready_at_ms << " ms)\n";
      else
        std::cout << "result: " << work[i].kind << " " << end->state << ": "
                  << end->reason << "\n";
      failed += end->state != "done";
    }
    // A causal event: every node delivers it, this one included.
    node.publish("greetings", "hello, cluster");
    {
      std::unique_lock<std::mutex> lock{out_mtx};
      if (!heard_cv.wait_for(lock, std::chrono::seconds(10), [&] { return heard; }))
        std::cout << "message: none heard in 10 s\n";
    }
    {
      std::lock_guard<std::mutex> guard{out_mtx};
      std::cout << "summary: " << ids.size() - failed << " done, " << failed
                << " failed" << std::endl;
    }
    if (!project.empty() && !run_evaluation(node, project))
      return 1;
    node.stop();
    return failed == 1 ? 0 : 1; // exactly the refused task fails
  } catch (const std::exception& e) {
    std::cerr << "dice-embed-example: " << e.what() << "\n";
    return 1;
  }
}
