// An application whose own actor uses an embedded DiCE node: it submits a
// task through the node's actor handle, gets the result as a message,
// submits a follow-up task made from that result, hears task events and
// the causal message it publishes, and never blocks. main() only waits
// for the actor to finish.
//
// Usage: dice-embed-actor-example
#include <chrono>
#include <iostream>
#include <sstream>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/after.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "dice/dice.hpp"

using namespace dice::embed;

namespace {

outcome count_words(const std::string& payload, const std::function<bool()>&) {
  std::istringstream in(payload);
  std::size_t n = 0;
  for (std::string w; in >> w;)
    ++n;
  return outcome::success(std::to_string(n));
}

outcome square(const std::string& payload, const std::function<bool()>&) {
  try {
    auto n = std::stoll(payload);
    return outcome::success(std::to_string(n * n));
  } catch (const std::exception&) {
    return outcome::failure("square: not a number: " + payload);
  }
}

struct host_state {
  int events = 0; // task events heard
};

caf::behavior host(caf::stateful_actor<host_state>* self, node_actor node) {
  auto fail = [self](const caf::error& e) {
    std::cout << "host: " << self->system().render(e) << std::endl;
    self->quit(e);
  };
  // Submits `t`; `next` gets its end as a message, whenever it comes.
  auto run = [self, node, fail](task t, std::function<void(const task_event&)> next) {
    auto kind = t.kind;
    self->request(node, std::chrono::seconds(10), submit_atom_v, std::move(t))
      .then([=](const std::string& id) {
        std::cout << "host: submitted " << kind << " as " << id << std::endl;
        self->request(node, caf::infinite, await_atom_v, id).then(next, fail);
      }, fail);
  };
  self->send(node, subscribe_atom_v, caf::actor_cast<task_observer>(self));
  self->send(node, subscribe_atom_v, std::string{"pipeline"},
             caf::actor_cast<message_observer>(self));
  // A submit the node cannot take is an error with its reason.
  self->request(node, std::chrono::seconds(10), submit_atom_v, task{"nosuch", ""})
    .then([](const std::string&) {}, [self](const caf::error& e) {
      std::cout << "host: refused: " << self->system().render(e) << std::endl;
    });
  run({"wordcount", "the quick brown fox jumps over the lazy dog"},
      [=](const task_event& words) {
        std::cout << "host: wordcount -> '" << words.result << "'" << std::endl;
        // The follow-up is made of the first result.
        run({"square", words.result}, [=](const task_event& sq) {
          std::cout << "host: square -> '" << sq.result << "' (" << sq.state << ")"
                    << std::endl;
          self->request(node, std::chrono::seconds(10), publish_atom_v,
                        std::string{"pipeline"},
                        "wordcount " + words.result + ", square " + sq.result)
            .then([](const message&) {}, fail);
        });
      });
  return {
    [self](const task_event&) { ++self->state.events; },
    [self](const message& m) {
      std::cout << "host: heard '" << m.data << "' on " << m.topic << " from "
                << m.origin << " after " << self->state.events << " task events"
                << std::endl;
      self->quit();
    },
  };
}

} // namespace

int main() {
  caf::actor_system_config cfg;
  prepare(cfg);
  caf::actor_system sys{cfg};
  try {
    options opts;
    opts.id = "actor-example";
    opts.listen = "127.0.0.1:0";
    node n{sys, opts};
    n.add_kind("wordcount", count_words);
    n.add_kind("square", square);
    n.start();
    std::cout << "node " << n.id() << " at " << n.address() << std::endl;
    // main waits (with a bound) for the host actor to finish.
    caf::scoped_actor self{sys};
    auto h = sys.spawn(host, n.actor());
    self->monitor(h);
    bool ok = false;
    self->receive(
      [&](caf::down_msg& dm) { ok = !dm.reason; },
      caf::after(std::chrono::seconds(60)) >> [] {
        std::cout << "host: not done in 60 s" << std::endl;
      });
    n.stop();
    std::cout << (ok ? "host: done" : "host: failed") << std::endl;
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "dice-embed-actor-example: " << e.what() << "\n";
    return 1;
  }
}
