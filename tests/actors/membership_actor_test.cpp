// Membership and the broadcast bridge as real CAF actors, three nodes in one
// process over the simulated network. CAF's test coordinator runs every
// actor on this thread and its test clock fires delayed messages only when
// the test advances it, so virtual time is the only time: no sleeps, and a
// seed replays the same run.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "simulation/sim_transport.hpp"
#include "common/caf_setup.hpp"
#include "membership/membership.hpp"

using namespace dice;

namespace {

/// One simulation step: a quarter of the default heartbeat interval, so
/// every tick fires at its exact virtual time.
constexpr millis step_ms = 50;

struct sim_node {
  std::string id;
  std::string addr;
  std::uint64_t incarnation = 0;
  broadcast_bridge bridge;
  membership members;
  bool up = true; // false between crash and restart
};

/// N nodes (bridge + membership actors each) on one sim_hub, driven step by
/// step. Declaration order matters: the hub outlives the actor system (the
/// actors' transports point into it) and the actor handles die before it.
struct cluster {
  sim_hub hub;
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  membership_config timing;
  std::map<std::string, sim_node> nodes;

  explicit cluster(std::uint64_t seed, link_faults faults = {0, 0, 1, 20})
    : hub(seed),
      sys(deterministic(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    spdlog::set_level(spdlog::level::warn);
    hub.network().set_default_faults(faults);
    hub.now = 1'000'000; // any start; virtual time only moves forward
  }

  ~cluster() {
    for (auto& [id, n] : nodes)
      stop_actors(n);
    sched.run();
  }

  millis now() const { return hub.now; }

  /// Spawns a node's actors on its address (a fresh transport each time).
  void start(const std::string& id, std::uint64_t incarnation,
             std::vector<std::string> seeds) {
    auto addr = addr_of(id);
    auto clock = [hub = &hub] { return hub->now; };
    bridge_config bc;
    bc.self = bridge_identity{"dice", id, addr, incarnation};
    bc.cluster_key = "test-key";
    bc.net = hub.make_transport(addr);
    bc.clock = clock;
    auto bridge = spawn_broadcast_bridge(sys, std::move(bc));
    membership_actor_config mc;
    mc.self_id = id;
    mc.self_addr = addr;
    mc.incarnation = incarnation;
    mc.timing = timing;
    for (auto& s : seeds)
      mc.seeds.push_back(addr_of(s));
    mc.clock = clock;
    auto members = spawn_membership(sys, bridge, std::move(mc));
    nodes[id] = sim_node{id, addr, incarnation, bridge, members, true};
    sched.run();
  }

  /// The process dies: its actors stop and the network stops carrying its
  /// datagrams (those in flight to it are lost).
  void crash(const std::string& id) {
    auto& n = nodes.at(id);
    hub.network().crash(n.addr);
    stop_actors(n);
    n.up = false;
    sched.run();
  }

  /// A new process on the same address, with a higher incarnation.
  void restart(const std::string& id, std::uint64_t incarnation,
               std::vector<std::string> seeds) {
    hub.network().restart(addr_of(id));
    start(id, incarnation, std::move(seeds));
  }

  /// Advances virtual time by one step: fires due ticks, delivers due
  /// datagrams, and lets every actor run until all mailboxes are empty.
  void step() {
    hub.now += step_ms;
    sched.clock().advance_time(std::chrono::milliseconds(step_ms));
    hub.deliver_due(hub.now);
    sched.run();
  }

  /// Steps until `done()` holds or `limit_ms` of virtual time have passed;
  /// returns the virtual time it took, or nullopt.
  template <class Predicate>
  std::optional<millis> step_until(Predicate done, millis limit_ms) {
    auto start_time = now();
    while (now() - start_time < limit_ms) {
      step();
      if (done())
        return now() - start_time;
    }
    return std::nullopt;
  }

  /// Asks a node's membership actor for its view (nodes_atom), the way any
  /// other actor would: a request from a short-lived actor.
  std::vector<node_view> view_of(const std::string& id) {
    std::optional<std::vector<node_view>> result;
    std::string failure;
    auto target = nodes.at(id).members;
    auto asker = sys.spawn([&, target](caf::event_based_actor* self) {
      self->request(target, caf::infinite, nodes_atom_v)
        .then([&](std::vector<node_view>& v) { result = std::move(v); },
              [&](caf::error& err) { failure = sys.render(err); });
    });
    sched.run();
    if (!result) {
      caf::anon_send_exit(asker, caf::exit_reason::user_shutdown);
      sched.run();
    }
    INFO("node " << id << ": " << failure);
    REQUIRE(result);
    return *result;
  }

  std::optional<node_view> row(const std::string& viewer,
                               const std::string& subject) {
    for (auto& v : view_of(viewer))
      if (v.id == subject)
        return v;
    return std::nullopt;
  }

  /// How `viewer` sees `subject` at `incarnation`; nullopt if not at all.
  std::optional<peer_state> state_of(const std::string& viewer,
                                     const std::string& subject,
                                     std::uint64_t incarnation) {
    auto r = row(viewer, subject);
    if (!r || r->incarnation != incarnation)
      return std::nullopt;
    return r->state;
  }

  bool sees_all_alive(const std::string& viewer, std::size_t expected) {
    auto view = view_of(viewer);
    if (view.size() != expected)
      return false;
    for (auto& v : view)
      if (v.state != peer_state::alive)
        return false;
    return true;
  }

  bool everyone_sees_all_alive() {
    for (auto& [id, n] : nodes)
      if (!sees_all_alive(id, nodes.size()))
        return false;
    return true;
  }

  std::string describe() {
    std::ostringstream out;
    for (auto& [id, n] : nodes) {
      if (!n.up) {
        out << id << " is down\n";
        continue;
      }
      out << id << " sees:";
      for (auto& v : view_of(id))
        out << " " << v.id << "=" << to_string(v.state) << "/" << v.incarnation;
      out << "\n";
    }
    return out.str();
  }

  static std::string addr_of(const std::string& id) {
    // "n1" -> 10.0.0.1:7400
    return "10.0.0." + id.substr(1) + ":7400";
  }

private:
  void stop_actors(sim_node& n) {
    if (n.members)
      caf::anon_send_exit(n.members, caf::exit_reason::user_shutdown);
    if (n.bridge)
      caf::anon_send_exit(n.bridge, caf::exit_reason::user_shutdown);
  }
};

/// The whole story: join through one seed, crash detection, restart.
void join_crash_restart(cluster& c, millis join_limit, millis rejoin_limit,
                        bool lossless) {
  const auto& t = c.timing;
  // Only n2 and n3 know n1; n1 knows nobody.
  c.start("n1", 1, {});
  c.start("n2", 1, {"n1"});
  c.start("n3", 1, {"n1"});

  auto joined = c.step_until([&] { return c.everyone_sees_all_alive(); },
                             join_limit);
  if (!joined)
    FAIL("no convergence within " << join_limit << " ms\n" << c.describe());
  INFO("converged after " << *joined << " ms");

  if (lossless) {
    // Converged means stable: nobody flaps to suspect while all are up.
    for (millis waited = 0; waited < 3 * t.dead_after_ms; waited += step_ms) {
      c.step();
      REQUIRE(c.everyone_sees_all_alive());
    }
  }

  auto crashed_at = c.now();
  c.crash("n3");
  auto dead_at_both = [&] {
    return c.state_of("n1", "n3", 1) == peer_state::dead
           && c.state_of("n2", "n3", 1) == peer_state::dead;
  };
  // Dead no later than dead_after_ms after the last heartbeat heard, and
  // that heartbeat came at most one interval before the crash.
  auto detected = c.step_until(dead_at_both,
                               t.dead_after_ms + t.heartbeat_interval_ms);
  if (!detected)
    FAIL("crash at " << crashed_at << " not detected within "
                     << t.dead_after_ms + t.heartbeat_interval_ms << " ms\n"
                     << c.describe());
  INFO("crash detected after " << *detected << " ms");
  if (lossless) {
    // Heard from n3 at most one interval (plus link delay) before the
    // crash: declaring it dead before its dead_after_ms ran out would be
    // a false verdict.
    CHECK(*detected >= t.dead_after_ms - t.heartbeat_interval_ms - 20);
  }
  // The survivors still see each other.
  CHECK(c.state_of("n1", "n2", 1) == peer_state::alive);
  CHECK(c.state_of("n2", "n1", 1) == peer_state::alive);

  c.restart("n3", 2, {"n1"});
  auto back = c.step_until(
    [&] {
      return c.everyone_sees_all_alive()
             && c.state_of("n1", "n3", 2) == peer_state::alive
             && c.state_of("n2", "n3", 2) == peer_state::alive;
    },
    rejoin_limit);
  if (!back)
    FAIL("restarted node not back within " << rejoin_limit << " ms\n"
                                           << c.describe());
  INFO("rejoined after " << *back << " ms");
  CHECK(c.view_of("n3").front().incarnation == 2);
}

} // namespace

TEST_CASE("three nodes join through one seed, detect a crash and a restart",
          "[membership][actor]") {
  const std::uint64_t seed = 1;
  INFO("seed " << seed);
  cluster c{seed};
  join_crash_restart(c, 3 * c.timing.heartbeat_interval_ms,
                     3 * c.timing.heartbeat_interval_ms, true);
}

TEST_CASE("membership converges over a network losing 20% of datagrams",
          "[membership][actor]") {
  auto seed = GENERATE(as<std::uint64_t>{}, 11, 12, 13, 14, 15);
  INFO("seed " << seed << " (loss 0.2, delay 1-20 ms)");
  cluster c{seed, {0.2, 0, 1, 20}};
  join_crash_restart(c, 15 * c.timing.heartbeat_interval_ms,
                     15 * c.timing.heartbeat_interval_ms, false);
  // The network did lose datagrams along the way.
  CHECK(c.hub.network().counters().dropped_loss > 0);
}

TEST_CASE("the view is answered over the actor interface",
          "[membership][actor]") {
  cluster c{1};
  c.start("n1", 5, {});
  auto view = c.view_of("n1");
  REQUIRE(view.size() == 1);
  CHECK(view[0].id == "n1");
  CHECK(view[0].addr == "10.0.0.1:7400");
  CHECK(view[0].incarnation == 5);
  CHECK(view[0].state == peer_state::alive);
  // Alone on the network, a node keeps seeing only itself.
  for (int i = 0; i < 20; ++i)
    c.step();
  CHECK(c.view_of("n1").size() == 1);
}

TEST_CASE("virtual time drives heartbeats: none are sent between ticks",
          "[membership][actor]") {
  cluster c{1, {0, 0, 1, 1}};
  c.start("n1", 1, {});
  c.start("n2", 1, {"n1"});
  // Let them meet, then count datagrams per heartbeat interval.
  REQUIRE(c.step_until([&] { return c.everyone_sees_all_alive(); }, 1000));
  auto sent_before = c.hub.network().counters().sent;
  const int intervals = 10;
  for (int i = 0; i < intervals * c.timing.heartbeat_interval_ms / step_ms; ++i)
    c.step();
  auto sent = c.hub.network().counters().sent - sent_before;
  // Each node heartbeats the other once per interval, nothing more.
  CHECK(sent == 2 * intervals);
}

TEST_CASE("a seed replays the same cluster run", "[membership][actor]") {
  auto run = [](std::uint64_t seed) {
    cluster c{seed, {0.2, 0.1, 1, 40}};
    c.start("n1", 1, {});
    c.start("n2", 1, {"n1"});
    c.start("n3", 1, {"n1"});
    for (int i = 0; i < 40; ++i)
      c.step();
    c.crash("n2");
    for (int i = 0; i < 20; ++i)
      c.step();
    const auto& k = c.hub.network().counters();
    std::ostringstream out;
    out << k.sent << " " << k.delivered << " " << k.dropped_loss << " "
        << k.duplicated << " " << k.dropped_crash << "\n"
        << c.describe();
    return out.str();
  };
  const std::uint64_t seed = 21;
  INFO("seed " << seed);
  auto first = run(seed);
  CHECK(run(seed) == first);
  CHECK(run(seed + 1) != first);
}

TEST_CASE("a listener subscribing after the peers were found still hears of "
          "them",
          "[membership][actor]") {
  cluster c{1, {0, 0, 1, 1}};
  c.start("n1", 1, {});
  c.start("n2", 1, {"n1"});
  c.start("n3", 1, {"n1"});
  REQUIRE(c.step_until([&] { return c.everyone_sees_all_alive(); }, 2000));
  auto heard = std::make_shared<std::vector<peer_change>>();
  peer_listener late = c.sys.spawn(
    [heard](peer_listener::pointer) -> peer_listener::behavior_type {
      return {[heard](peer_event_atom, const peer_change& p) {
        heard->push_back(p);
      }};
    });
  caf::anon_send(c.nodes.at("n1").members, subscribe_atom_v, late);
  c.sched.run();
  REQUIRE(heard->size() == 2);
  CHECK((*heard)[0].id == "n2");
  CHECK((*heard)[1].id == "n3");
  for (const auto& p : *heard) {
    CHECK(p.to == peer_state::alive);
    CHECK(p.joined);
  }
  caf::anon_send_exit(late, caf::exit_reason::user_shutdown);
}
