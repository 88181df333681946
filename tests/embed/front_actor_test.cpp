// The front actor (the node's actor interface) under CAF's test scheduler:
// every actor runs on this thread when the test says so, so each step is
// deterministic. The node's internal actors are stand-ins with the same
// typed interfaces (queue_part, causal_part, evaluation_actor); the test
// plays the replica by ending tasks. Host actors use the public handle
// (node_actor) with request(...).then(...), as an application's would.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "common/caf_setup.hpp"
#include "dice/node.hpp"
#include "embed/front_actor.hpp"
#include "known_tasks/task_policy.hpp"

using namespace dice::embed;

namespace {

/// What the stand-ins hold: the replica's rows, the listeners, a switch
/// that makes the queue refuse submits as a full submit window does.
struct stand_in_node {
  dice::task_listener tasks_to;
  dice::causal_listener messages_to;
  std::map<std::string, dice::task_row> rows;
  bool busy = false;
  std::vector<std::string> peer_kinds; // what a live peer's heartbeat names
  int enqueued = 0;
  std::uint64_t delivered = 0;

  /// The replica merges a new state of task `id` and tells its listener.
  void change(const std::string& id, dice::wire::TaskPhase phase,
              const std::string& result = "") {
    auto& r = rows.at(id);
    r.state.set_phase(phase);
    r.state.set_result(result);
    caf::anon_send(tasks_to, dice::task_event_atom_v, r);
  }
  bool end(const std::string& id, dice::wire::TaskPhase phase) {
    auto it = rows.find(id);
    if (it == rows.end() || it->second.state.phase() != dice::wire::READY)
      return false;
    change(id, phase);
    return true;
  }
};

// (CAF takes a leading pointer for the actor's self: it comes first.)
queue_part::behavior_type stand_in_queue(queue_part::pointer, stand_in_node* n) {
  return {
    [n](dice::subscribe_atom, dice::task_listener& who) { n->tasks_to = who; },
    [n](dice::submit_atom, std::vector<dice::wire::TaskSpec>& specs, caf::timestamp) {
      dice::submit_receipt r;
      if (n->busy) {
        r.refused = "20000 tasks of this node are not yet replicated";
        return r;
      }
      for (auto& s : specs) {
        if (s.id().empty())
          s.set_id("t" + std::to_string(++n->enqueued));
        n->rows[s.id()] = dice::task_row{true, s, {}, "n1"};
        r.ids.push_back(s.id());
        n->change(s.id(), dice::wire::READY);
      }
      r.batch = 1;
      return r;
    },
    [](dice::submit_atom, std::uint64_t) { return true; }, // replicated
    [n](dice::runners_atom) {
      std::vector<dice::runner_capabilities> peers;
      if (!n->peer_kinds.empty())
        peers.push_back(dice::runner_capabilities{n->peer_kinds, {}});
      return peers;
    },
    [n](dice::cancel_atom, const std::string& id) { return n->end(id, dice::wire::CANCELED); },
    [n](dice::remove_atom, const std::string& id) { return n->end(id, dice::wire::REMOVED); },
    [n](dice::tasks_atom, const dice::task_query& q) {
      std::vector<dice::task_row> out;
      for (auto& id : q.ids)
        if (auto it = n->rows.find(id); it != n->rows.end())
          out.push_back(it->second);
      return out;
    },
  };
}

causal_part::behavior_type stand_in_causal(causal_part::pointer, stand_in_node* n) {
  return {
    [n](dice::publish_atom, const std::string& topic, const std::string& data) {
      ++n->delivered;
      dice::causal_delivery d{n->delivered, "n1", n->delivered, topic, data, 7};
      caf::anon_send(n->messages_to, dice::causal_atom_v, d);
      return d;
    },
    [n](dice::subscribe_atom, dice::causal_listener& who) { n->messages_to = who; },
  };
}

evaluation_actor::behavior_type stand_in_evaluations() {
  return {
    [](evaluate_atom, const std::string& path,
       const evaluation_options&) -> caf::result<std::string> {
      if (path.empty())
        return make_error(refusal::invalid, "no such directory or archive");
      return std::string{"eval-1"};
    },
  };
}

/// A front over stand-ins, on the test scheduler. Declaration order: the
/// stand-ins' node outlives the actor system.
struct fixture {
  stand_in_node replica;
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  node_actor node;
  std::vector<std::string> log; // what the host actors heard

  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    dice::deterministic(cfg);
    prepare(cfg);
    return cfg;
  }

  fixture()
    : sys(configure(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    front_config fc;
    fc.runs = [](const std::string& kind) { return kind == "upper"; };
    fc.clock = [] { return dice::millis{1'000'000'000'000}; };
    node = spawn_front(sys, fc,
                       front_targets{sys.spawn(stand_in_queue, &replica),
                                     sys.spawn(stand_in_causal, &replica),
                                     sys.spawn(stand_in_evaluations)});
    sched.run();
  }

  ~fixture() {
    caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
    sched.run();
  }

  /// Spawns a host actor that runs `body` and hears what it subscribes to.
  template <class Body>
  caf::actor host(Body body) {
    auto h = sys.spawn([this, body](caf::event_based_actor* self) -> caf::behavior {
      body(self);
      return {
        [this](const task_event& ev) { log.push_back("event " + ev.id + " " + ev.state); },
        [this](const message& m) { log.push_back("message " + m.topic + " " + m.data); },
      };
    });
    sched.run();
    return h;
  }

  /// A handler for a refusal (or any error) that logs its text.
  auto logs_error(caf::event_based_actor* self) {
    return [this, self](const caf::error& e) {
      auto why = refusal_of(e);
      log.push_back("refused " + std::to_string(why ? int(*why) : 0) + " "
                    + self->system().render(e));
    };
  }
};

} // namespace

TEST_CASE("a host actor submits, gets the result as a message and submits a follow-up",
          "[embed]") {
  fixture f;
  auto node = f.node;
  f.host([&f, node](caf::event_based_actor* self) {
    self->request(node, caf::infinite, submit_atom_v, task{"upper", "hi"})
      .then([&f, node, self](const std::string& id) {
        f.log.push_back("submitted " + id);
        self->request(node, caf::infinite, await_atom_v, id)
          .then([&f, node, self](const task_event& end) {
            f.log.push_back("ended " + end.id + " " + end.state + " " + end.result);
            // The follow-up is computed from the first result.
            self->request(node, caf::infinite, submit_atom_v,
                          task{"upper", end.result + " again"})
              .then([&f](const std::string& id) { f.log.push_back("submitted " + id); },
                    f.logs_error(self));
          }, f.logs_error(self));
      }, f.logs_error(self));
  });
  CHECK(f.log == std::vector<std::string>{"submitted t1"});
  f.replica.change("t1", dice::wire::DONE, "HI"); // the task ran
  f.sched.run();
  CHECK(f.log == std::vector<std::string>{"submitted t1", "ended t1 done HI", "submitted t2"});
  CHECK(f.replica.rows.at("t2").spec.payload() == "HI again");
}

TEST_CASE("a kind this node lacks is taken when a live peer runs it (a worker "
          "serves it there)",
          "[embed]") {
  fixture f;
  auto node = f.node;
  f.replica.peer_kinds = {"echo", "resize"};
  f.host([&f, node](caf::event_based_actor* self) {
    self->request(node, caf::infinite, submit_atom_v, task{"resize", "cat.png"})
      .then([&f](const std::string& id) { f.log.push_back("submitted " + id); },
            f.logs_error(self));
    self->request(node, caf::infinite, submit_atom_v, task{"thumb", "cat.png"})
      .then([&f](const std::string& id) { f.log.push_back("submitted " + id); },
            f.logs_error(self));
  });
  // The refusal comes first: the submit then waits for replication.
  CHECK(f.log == std::vector<std::string>{"refused 1 unknown kind 'thumb'", "submitted t1"});
  CHECK(f.replica.rows.at("t1").spec.kind() == "resize");
}

TEST_CASE("a submit the node cannot take is refused with a reason", "[embed]") {
  fixture f;
  auto node = f.node;
  auto submit = [&f, node](task t) {
    f.host([&f, node, t](caf::event_based_actor* self) {
      self->request(node, caf::infinite, submit_atom_v, t)
        .then([&f](const std::string& id) { f.log.push_back("submitted " + id); },
              f.logs_error(self));
    });
  };
  submit({"lower", "x"});
  submit({"upper", std::string(40'000, 'x')});
  task locked{"upper", "x"};
  locked.locks = {"two words"};
  submit(locked);
  f.replica.busy = true;
  submit({"upper", "x"});
  REQUIRE(f.log.size() == 4);
  CHECK(f.log[0] == "refused 1 unknown kind 'lower'");
  CHECK(f.log[1] == "refused 2 payload of 40000 bytes exceeds the limit of 32768");
  CHECK(f.log[2].rfind("refused 3 ", 0) == 0);
  CHECK(f.log[3] == "refused 4 no task enqueued: 20000 tasks of this node are not yet replicated");
  CHECK(f.replica.enqueued == 0);
}

TEST_CASE("a keyed task the replica holds is answered with its id, not enqueued again",
          "[embed]") {
  fixture f;
  auto id = dice::keyed_task_id("order-17");
  dice::task_row held{true, {}, {}, "n2"};
  held.spec.set_id(id);
  f.replica.rows[id] = held;
  task t{"upper", "x"};
  t.key = "order-17";
  auto node = f.node;
  f.host([&f, node, t](caf::event_based_actor* self) {
    self->request(node, caf::infinite, submit_atom_v, t)
      .then([&f](const std::string& got) { f.log.push_back("submitted " + got); },
            f.logs_error(self));
  });
  CHECK(f.log == std::vector<std::string>{"submitted " + id});
  CHECK(f.replica.enqueued == 0);
}

TEST_CASE("a host actor queries, cancels and removes tasks, and hears their events",
          "[embed]") {
  fixture f;
  auto node = f.node;
  auto host = f.host([node](caf::event_based_actor* self) {
    self->send(node, subscribe_atom_v, caf::actor_cast<task_observer>(self));
    for (auto payload : {"a", "b"})
      self->request(node, caf::infinite, submit_atom_v, task{"upper", payload})
        .then([](const std::string&) {});
  });
  auto ask = [&f, node](auto atom, std::string id) {
    f.host([&f, node, atom, id](caf::event_based_actor* self) {
      self->request(node, caf::infinite, atom, id)
        .then([&f, id](bool ok) { f.log.push_back(id + (ok ? " true" : " false")); },
              f.logs_error(self));
    });
  };
  ask(cancel_atom_v, "t1");
  ask(remove_atom_v, "t2");
  ask(cancel_atom_v, "t2"); // already ended
  ask(remove_atom_v, "t9"); // unknown
  for (auto id : {"t1", "t9"})
    f.host([&f, node, id](caf::event_based_actor* self) {
      self->request(node, caf::infinite, query_atom_v, std::string{id})
        .then([&f, id](const std::optional<task_event>& now) {
          f.log.push_back(std::string{"query "} + id + " " + (now ? now->state : "none"));
        }, f.logs_error(self));
    });
  // An answer and the event it caused reach two actors: in either order.
  std::sort(f.log.begin(), f.log.end());
  CHECK(f.log == std::vector<std::string>{
                   "event t1 canceled", "event t1 ready", "event t2 ready",
                   "event t2 removed", "query t1 canceled", "query t9 none",
                   "t1 true", "t2 false", "t2 true", "t9 false"});
  // Unsubscribed: nothing more.
  f.log.clear();
  caf::anon_send(node, unsubscribe_atom_v, caf::actor_cast<task_observer>(host));
  f.sched.run();
  f.replica.rows["t3"] = dice::task_row{true, {}, {}, "n1"};
  f.replica.change("t3", dice::wire::DONE);
  f.sched.run();
  CHECK(f.log == std::vector<std::string>{});
}

TEST_CASE("an await is answered after the end, and for a task that ended unheard",
          "[embed]") {
  fixture f;
  auto node = f.node;
  auto await = [&f, node](std::string id) {
    f.host([&f, node, id](caf::event_based_actor* self) {
      self->request(node, caf::infinite, await_atom_v, id)
        .then([&f](const task_event& end) { f.log.push_back(end.id + " " + end.state); },
              f.logs_error(self));
    });
  };
  f.replica.rows["t1"] = dice::task_row{true, {}, {}, "n1"};
  f.replica.rows["t1"].spec.set_id("t1");
  f.replica.change("t1", dice::wire::DONE);
  f.sched.run();
  await("t1"); // the front heard the end
  // The replica ended t2 before the front listened: it asks the replica.
  dice::task_row t2{true, {}, {}, "n1"};
  t2.spec.set_id("t2");
  t2.state.set_phase(dice::wire::FAILED);
  f.replica.rows["t2"] = t2;
  await("t2");
  await("t3"); // not known yet: waits
  CHECK(f.log == std::vector<std::string>{"t1 done", "t2 failed"});
  // The node stops: a pending await learns it.
  caf::anon_send_exit(f.node, caf::exit_reason::user_shutdown);
  f.sched.run();
  REQUIRE(f.log.size() == 3);
  CHECK(f.log[2] == "refused 0 " + f.sys.render(caf::make_error(
                                      caf::sec::request_receiver_down,
                                      "the node stopped before the task ended")));
}

TEST_CASE("a host actor hears the causal messages of its topic", "[embed]") {
  fixture f;
  auto node = f.node;
  // Another actor hears every topic.
  f.host([node](caf::event_based_actor* self) {
    self->send(node, subscribe_atom_v, std::string{}, caf::actor_cast<message_observer>(self));
  });
  f.host([&f, node](caf::event_based_actor* self) {
    self->send(node, subscribe_atom_v, std::string{"greetings"},
               caf::actor_cast<message_observer>(self));
    for (auto topic : {"greetings", "other"})
      self->request(node, caf::infinite, publish_atom_v, std::string{topic},
                    std::string{"hello"})
        .then([&f](const message& m) {
          f.log.push_back("published " + m.topic + " #" + std::to_string(m.seq));
        }, f.logs_error(self));
    self->request(node, caf::infinite, publish_atom_v, std::string{"bad topic"},
                  std::string{"x"})
      .then([](const message&) {}, f.logs_error(self));
  });
  std::sort(f.log.begin(), f.log.end());
  CHECK(f.log == std::vector<std::string>{
                   "message greetings hello", "message greetings hello",
                   "message other hello", "published greetings #1", "published other #2",
                   "refused 3 topic 'bad topic' may hold only letters, digits and - _ . : /"});
}

TEST_CASE("an evaluation is submitted through the handle", "[embed]") {
  fixture f;
  auto node = f.node;
  f.host([&f, node](caf::event_based_actor* self) {
    for (std::string path : {"project", ""})
      self->request(node, caf::infinite, evaluate_atom_v, path, evaluation_options{})
        .then([&f](const std::string& id) { f.log.push_back("evaluation " + id); },
              f.logs_error(self));
  });
  CHECK(f.log == std::vector<std::string>{"evaluation eval-1",
                                          "refused 3 no such directory or archive"});
}
