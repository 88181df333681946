// A started node (real sockets on 127.0.0.1, slot threads, the normal
// scheduler) driven by a host actor through node.actor(): it submits, gets
// results as messages, submits a follow-up from a result, queries, cancels
// and removes tasks, and hears task events and a causal message. The test
// waits for the host's report with a bound, never a sleep.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <set>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>

#include "dice/dice.hpp"

using namespace dice::embed;

namespace {

outcome upper(const std::string& payload, const std::function<bool()>&) {
  std::string out = payload;
  for (auto& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return outcome::success(out);
}

struct report {
  std::vector<std::string> log;  // the host's steps, in order
  std::set<std::string> states;  // task states heard as events
};

// The host: every step starts when the answer to the one before arrives.
caf::behavior host(caf::event_based_actor* self, node_actor node,
                   std::shared_ptr<std::promise<report>> done) {
  auto rep = std::make_shared<report>();
  auto step = [rep](std::string s) { rep->log.push_back(std::move(s)); };
  // Reports once, and the host is done.
  auto settle = [self, rep, done, settled = std::make_shared<bool>(false)] {
    if (!*settled)
      done->set_value(*rep);
    *settled = true;
    self->quit();
  };
  auto fail = [self, step, settle](const caf::error& e) {
    step("error " + self->system().render(e));
    settle();
  };
  auto heard = std::make_shared<int>(0); // the message: published and delivered
  auto finish = [settle, heard] {
    if (++*heard == 2)
      settle();
  };
  auto later = [](std::string payload) {
    task t{"upper", std::move(payload)};
    t.delay = std::chrono::hours(1); // stays ready until canceled or removed
    return t;
  };
  auto publish = [=] {
    self->request(node, caf::infinite, publish_atom_v, std::string{"greetings"},
                  std::string{"hi"})
      .then([=](const message& m) { step("published " + m.topic); finish(); }, fail);
  };
  // A task that stays ready: queried, then ended by `op` (cancel or remove).
  auto end_by = [=](auto op, std::string name, std::function<void()> next) {
    self->request(node, caf::infinite, submit_atom_v, later(name)).then([=](const std::string& id) {
      self->request(node, caf::infinite, query_atom_v, id).then([=](const std::optional<task_event>& now) {
        step("query " + (now ? now->state : std::string{"none"}));
        self->request(node, caf::infinite, op, id).then([=](bool ok) {
          step(name + (ok ? " true" : " false"));
          self->request(node, caf::infinite, await_atom_v, id).then([=](const task_event& end) {
            step("ended " + end.state);
            next();
          }, fail);
        }, fail);
      }, fail);
    }, fail);
  };
  auto run = [=](std::string payload, std::function<void(const task_event&)> then) {
    self->request(node, std::chrono::seconds(30), submit_atom_v, task{"upper", payload})
      .then([=](const std::string& id) {
        self->request(node, caf::infinite, await_atom_v, id).then(then, fail);
      }, fail);
  };
  self->send(node, subscribe_atom_v, caf::actor_cast<task_observer>(self));
  self->send(node, subscribe_atom_v, std::string{"greetings"},
             caf::actor_cast<message_observer>(self));
  run("hello", [=](const task_event& first) {
    step("ended " + first.state + " " + first.result);
    // The follow-up is made of the first result.
    run(first.result + " again", [=](const task_event& second) {
      step("ended " + second.state + " " + second.result);
      end_by(cancel_atom_v, "cancel", [=] { end_by(remove_atom_v, "remove", publish); });
    });
  });
  return {
    [rep](const task_event& ev) { rep->states.insert(ev.state); },
    [=](const message& m) { step("heard " + m.topic + " " + m.data); finish(); },
  };
}

/// A node on a loopback port that runs `upper`, not started yet.
struct one_node {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  node n;

  static caf::actor_system_config& prepared(caf::actor_system_config& cfg) {
    prepare(cfg);
    return cfg;
  }
  static options at_any_port(const std::string& id) {
    options opts;
    opts.id = id;
    opts.listen = "127.0.0.1:0";
    return opts;
  }
  explicit one_node(const std::string& id) : sys(prepared(cfg)), n(sys, at_any_port(id)) {
    n.add_kind("upper", upper);
  }
};

} // namespace

TEST_CASE("a host actor drives a started node through its actor handle", "[embed]") {
  one_node one{"actor-host"};
  one.n.start();
  auto done = std::make_shared<std::promise<report>>();
  auto result = done->get_future();
  one.sys.spawn(host, one.n.actor(), done);
  REQUIRE(result.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  auto rep = result.get();
  // The message arrives as the answer to publish and to the subscription, in
  // either order: the rest is in the host's order.
  auto tail = std::vector<std::string>(rep.log.end() - std::min<std::size_t>(2, rep.log.size()),
                                       rep.log.end());
  std::sort(tail.begin(), tail.end());
  rep.log.resize(rep.log.size() - tail.size());
  CHECK(rep.log == std::vector<std::string>{"ended done HELLO", "ended done HELLO AGAIN",
                                            "query ready", "cancel true", "ended canceled",
                                            "query ready", "remove true", "ended removed"});
  CHECK(tail == std::vector<std::string>{"heard greetings hi", "published greetings"});
  for (auto s : {"ready", "done", "canceled", "removed"})
    CHECK(rep.states.count(s) == 1);
}

TEST_CASE("the blocking calls and the actor handle are one node", "[embed]") {
  one_node one{"blocking"};
  auto& n = one.n;
  CHECK_THROWS_AS(n.actor(), std::logic_error); // before start()
  n.start();
  auto id = n.submit({"upper", "x"});
  auto end = n.await(id, std::chrono::seconds(30));
  REQUIRE(end);
  CHECK(end->result == "X");
  CHECK_THROWS_WITH(n.submit({"lower", "x"}), "submit: unknown kind 'lower'");
  CHECK_THROWS_AS(n.submit({"upper", std::string(40'000, 'x')}), std::invalid_argument);
  CHECK_THROWS_AS(n.publish("bad topic", "x"), std::invalid_argument);
  CHECK_FALSE(n.cancel(id)); // ended
  CHECK_FALSE(n.await("no-such-task", std::chrono::milliseconds(50)));
}

TEST_CASE("an embedded kind receives its parents' results as values, and a "
          "workflow submitted as JSON runs as one graph",
          "[embed][workflows]") {
  one_node one{"parents"};
  auto& n = one.n;
  // Joins the parents' results, in the order the task named them.
  n.add_kind("join", [](const std::string& payload, const std::vector<parent>& parents,
                        const std::function<bool()>&) {
    std::string out = payload;
    for (const auto& p : parents)
      out += "|" + p.state + ":" + p.result_or_reason;
    return outcome::success(out);
  });
  n.start();
  auto a = n.submit({"upper", "a"});
  auto b = n.submit({"upper", "b"});
  task joined{"join", "j"};
  joined.after = {b, a};
  auto end = n.await(n.submit(joined), std::chrono::seconds(30));
  REQUIRE(end);
  CHECK(end->result == "j|done:B|done:A");

  auto wf = n.submit_workflow(R"({"steps": [
    {"name": "up", "kind": "upper", "payloads": ["x", "y"]},
    {"name": "all", "kind": "join", "payload": "w", "after": ["up"]}]})");
  CHECK(wf.rfind("wf-", 0) == 0);
  CHECK_THROWS_WITH(n.submit_workflow(R"({"steps": [{"name": "s", "kind": "lower"}]})"),
                    "submit_workflow: step 's': unknown kind 'lower'");
  CHECK_THROWS_AS(n.submit_workflow("{"), std::invalid_argument);
  // The fan-in's id derives from the workflow's and the step's name.
  auto all = n.await(step_task_id(wf, "all"), std::chrono::seconds(30));
  REQUIRE(all);
  CHECK(all->result == "w|done:X|done:Y");
  auto y = n.await(step_task_id(wf, "up", 1, 2), std::chrono::seconds(5));
  REQUIRE(y);
  CHECK(y->result == "Y");
}

TEST_CASE("an embedded node adds a schedule whose ticks run as tasks",
          "[embed][schedules]") {
  one_node one{"ticks"};
  auto& n = one.n;
  std::mutex m;
  std::set<std::string> done;
  n.on_event([&](const task_event& ev) {
    std::lock_guard<std::mutex> g(m);
    if (ev.kind == "upper" && ev.state == "done")
      done.insert(ev.id);
  });
  n.start();
  auto json = R"({"name": "beat", "every_ms": 200, "task": {"kind": "upper", "payload": "t"}})";
  auto id = n.add_schedule(json);
  CHECK(n.add_schedule(json) == id); // the same schedule
  CHECK_THROWS_AS(n.add_schedule(R"({"name": "x", "every_ms": 200})"), std::invalid_argument);
  // Ticks every 200 ms: several run within two seconds.
  for (int i = 0; i < 100; ++i) {
    {
      std::lock_guard<std::mutex> g(m);
      if (done.size() >= 3)
        break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::lock_guard<std::mutex> g(m);
  CHECK(done.size() >= 3);
}
