// The broadcast bridge actor bundles the broadcasts queued at once and sends
// to node ids: two bridges over the simulated network under CAF's test
// coordinator.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "simulation/sim_transport.hpp"
#include "common/caf_setup.hpp"

using namespace dice;

namespace {

/// Counts the datagrams a transport is asked to send.
class counting : public transport {
public:
  explicit counting(std::shared_ptr<transport> inner)
    : inner_(std::move(inner)) {
  }
  void start(receive_handler h) override { inner_->start(std::move(h)); }
  void stop() override { inner_->stop(); }
  bool send_to(const std::string& addr, const std::string& bytes) override {
    ++sent;
    return inner_->send_to(addr, bytes);
  }
  std::size_t broadcast(const std::vector<std::string>& targets,
                        const std::string& bytes) override {
    sent += targets.size();
    return inner_->broadcast(targets, bytes);
  }
  std::size_t sent = 0;

private:
  std::shared_ptr<transport> inner_;
};

struct recorder_state {
  std::vector<std::string> ids; // task ids of the ENQUEUEs heard, in order
  std::vector<std::string> senders;
};

struct two_bridges {
  sim_hub hub{1};
  caf::actor_system_config cfg;
  caf::actor_system sys{deterministic(cfg)};
  caf::scheduler::test_coordinator& sched{
    dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())};
  std::shared_ptr<counting> a_net, b_net;
  broadcast_bridge a;
  broadcast_bridge b;
  std::shared_ptr<recorder_state> heard = std::make_shared<recorder_state>();

  // `bundle_bytes` of bridge a (0: bundling off).
  explicit two_bridges(std::size_t bundle_bytes = defaults::bundle_bytes) {
    hub.network().set_default_faults({0, 0, 1, 1});
    a_net = std::make_shared<counting>(hub.make_transport("a:1"));
    a = spawn("a", a_net, bundle_bytes);
    b_net = std::make_shared<counting>(hub.make_transport("b:1"));
    b = spawn("b", b_net);
    // a's membership knows b; b's knows nobody yet.
    caf::anon_send(a, peers_atom_v, peer_directory{{{"b", "b:1"}}, {}});
    auto rec = heard;
    wire_listener listener = sys.spawn(
      [rec](wire_listener::pointer) -> wire_listener::behavior_type {
        auto note = [rec](const wire::Message& m) {
          rec->ids.push_back(m.enqueue().spec().id());
          rec->senders.push_back(m.sender_id());
        };
        return {[note](inbound_atom, const wire::Message& m) { note(m); },
                [note](inbound_atom, const std::vector<wire::Message>& ms) {
                  for (const auto& m : ms)
                    note(m);
                }};
      });
    caf::anon_send(b, subscribe_atom_v, std::string{"queue"}, listener);
    sched.run();
  }

  broadcast_bridge spawn(const std::string& id, std::shared_ptr<transport> net,
                         std::size_t bundle_bytes = defaults::bundle_bytes) {
    bridge_config bc;
    bc.limits.bundle_bytes = bundle_bytes;
    bc.self = bridge_identity{"dice", id, id + ":1", 1};
    bc.cluster_key = "k";
    bc.net = std::move(net);
    bc.clock = [h = &hub] { return h->now; };
    return spawn_broadcast_bridge(sys, std::move(bc));
  }

  static wire::Message enqueue(int i) {
    wire::Message m;
    m.mutable_enqueue()->mutable_spec()->set_id("t" + std::to_string(i));
    return m;
  }

  void broadcast_enqueues(int from, int to) {
    for (int i = from; i < to; ++i)
      caf::anon_send(a, broadcast_atom_v, enqueue(i));
  }

  void piggyback_enqueue(int i, millis hold) {
    caf::anon_send(a, piggyback_atom_v, enqueue(i), hold);
  }

  void deliver() {
    sched.run();
    hub.deliver_due(hub.now + 10);
    sched.run();
  }

  /// A bridge's counters, asked as any actor would.
  bridge_counters counters_of(const broadcast_bridge& who) {
    std::optional<bridge_counters> result;
    auto asker = sys.spawn([&, who](caf::event_based_actor* self) {
      self->request(who, caf::infinite, stats_atom_v)
        .then([&](const bridge_counters& c) { result = c; });
    });
    sched.run();
    REQUIRE(result);
    return *result;
  }

  ~two_bridges() {
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
    sched.run();
  }
};

std::vector<std::string> ids(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i)
    out.push_back("t" + std::to_string(i));
  return out;
}

} // namespace

TEST_CASE("bridge: a burst of broadcasts leaves as one datagram and arrives "
          "whole, in order",
          "[actor][bridge]") {
  two_bridges net;
  net.broadcast_enqueues(0, 50);
  net.deliver();
  CHECK(net.a_net->sent == 1);
  CHECK(net.heard->ids == ids(0, 50));
  CHECK(net.heard->senders == std::vector<std::string>(50, "a"));
}

TEST_CASE("bridge: broadcasts sent apart leave apart", "[actor][bridge]") {
  two_bridges net;
  net.broadcast_enqueues(0, 1);
  net.deliver();
  net.broadcast_enqueues(1, 2);
  net.deliver();
  CHECK(net.a_net->sent == 2);
  CHECK(net.heard->ids == ids(0, 2));
}

TEST_CASE("bridge: a piggybacked broadcast rides along with the next "
          "broadcast",
          "[actor][bridge]") {
  two_bridges net;
  net.piggyback_enqueue(0, 1000);
  net.deliver();
  CHECK(net.a_net->sent == 0); // held, waiting for company
  net.broadcast_enqueues(1, 2);
  net.deliver();
  CHECK(net.a_net->sent == 1);
  CHECK(net.heard->ids == std::vector<std::string>{"t1", "t0"});
  // Its timer, firing later, finds nothing left to send.
  net.sched.advance_time(std::chrono::seconds(1));
  net.deliver();
  CHECK(net.a_net->sent == 1);
}

TEST_CASE("bridge: a piggybacked broadcast with no company leaves alone "
          "when its hold ends",
          "[actor][bridge]") {
  two_bridges net;
  net.piggyback_enqueue(0, 200);
  net.piggyback_enqueue(1, 50); // the earlier deadline counts
  net.deliver();
  net.sched.advance_time(std::chrono::milliseconds(49));
  net.deliver();
  CHECK(net.a_net->sent == 0);
  net.sched.advance_time(std::chrono::milliseconds(1));
  net.deliver();
  CHECK(net.a_net->sent == 1);
  CHECK(net.heard->ids == ids(0, 2));
}

TEST_CASE("bridge: with bundling off a piggybacked broadcast leaves at once",
          "[actor][bridge]") {
  two_bridges net{0};
  net.piggyback_enqueue(0, 1000);
  net.deliver();
  CHECK(net.a_net->sent == 1);
  CHECK(net.heard->ids == ids(0, 1));
}

TEST_CASE("bridge: a message for a node id goes where membership says it "
          "listens, or where its datagrams come from, an unknown id is "
          "counted as unaddressed, not sent",
          "[actor][bridge]") {
  two_bridges net;
  caf::anon_send(net.a, send_to_atom_v, std::string{"b"},
                 two_bridges::enqueue(1));
  net.deliver();
  CHECK(net.heard->ids == ids(1, 2));
  CHECK(net.counters_of(net.a).unaddressed == 0);

  caf::anon_send(net.a, send_to_atom_v, std::string{"nobody"},
                 two_bridges::enqueue(2));
  net.deliver();
  CHECK(net.a_net->sent == 1);
  CHECK(net.counters_of(net.a).unaddressed == 1);

  // b's membership never named a, but a's datagram said where it listens.
  caf::anon_send(net.b, send_to_atom_v, std::string{"a"},
                 two_bridges::enqueue(3));
  net.deliver();
  CHECK(net.b_net->sent == 1);
  CHECK(net.counters_of(net.b).unaddressed == 0);
}
