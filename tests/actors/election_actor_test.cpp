// The election actor as a real CAF actor: three nodes (bridge, membership,
// election) in one process over the simulated network, under CAF's test
// coordinator, so virtual time is the only time. They elect by bully, tell
// a subscriber, and elect again when the coordinator crashes.
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "simulation/sim_transport.hpp"
#include "common/caf_setup.hpp"
#include "election/election_actor.hpp"

using namespace dice;

namespace {

constexpr millis step_ms = 10;

struct election_cluster {
  struct node {
    broadcast_bridge bridge;
    membership members;
    election elect;
  };

  sim_hub hub{7};
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::map<std::string, node> nodes;
  // What each node's subscriber was last told.
  std::map<std::string, std::string> told;

  election_cluster()
    : sys(configure(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    spdlog::set_level(spdlog::level::warn);
    hub.network().set_default_faults({0, 0, 1, 5});
    hub.now = 1'000'000;
  }

  ~election_cluster() {
    for (auto& [id, n] : nodes)
      stop(n);
    sched.run();
  }

  static caf::actor_system_config& configure(caf::actor_system_config& c) {
    register_message_types(c);
    c.set("scheduler.policy", caf::atom("testing"));
    c.set("logger.file-verbosity", caf::atom("quiet"));
    c.set("logger.console-verbosity", caf::atom("quiet"));
    return c;
  }

  static std::string addr_of(const std::string& id) {
    return "10.0.0." + id.substr(1) + ":7400";
  }

  void start(const std::string& id, std::vector<std::string> seeds) {
    auto addr = addr_of(id);
    auto clock = [hub = &hub] { return hub->now; };
    bridge_config bc;
    bc.self = bridge_identity{"dice", id, addr, 1};
    bc.net = hub.make_transport(addr);
    bc.clock = clock;
    auto bridge = spawn_broadcast_bridge(sys, std::move(bc));
    membership_actor_config mc;
    mc.self_id = id;
    mc.self_addr = addr;
    mc.incarnation = 1;
    for (auto& s : seeds)
      mc.seeds.push_back(addr_of(s));
    mc.clock = clock;
    auto members = spawn_membership(sys, bridge, std::move(mc));
    election_actor_config ec;
    ec.self_id = id;
    ec.algorithm = "bully";
    ec.clock = clock;
    auto elect = spawn_election(sys, std::move(ec), bridge, members);
    auto* slot = &told[id];
    auto listener = sys.spawn([slot](coordinator_listener::pointer) {
      return coordinator_listener::behavior_type{
        [slot](coordinator_atom, const std::string& c) { *slot = c; }};
    });
    caf::anon_send(elect, subscribe_atom_v, listener);
    nodes[id] = node{bridge, members, elect};
    sched.run();
  }

  void crash(const std::string& id) {
    hub.network().crash(addr_of(id));
    stop(nodes.at(id));
    nodes.erase(id);
    told.erase(id);
    sched.run();
  }

  void step() {
    hub.now += step_ms;
    sched.clock().advance_time(std::chrono::milliseconds(step_ms));
    hub.deliver_due(hub.now);
    sched.run();
  }

  election_view view_of(const std::string& id) {
    std::optional<election_view> result;
    auto target = nodes.at(id).elect;
    sys.spawn([&, target](caf::event_based_actor* self) {
      self->request(target, caf::infinite, election_atom_v)
        .then([&](election_view& v) { result = std::move(v); });
    });
    sched.run();
    REQUIRE(result);
    return *result;
  }

  /// True once every node reports `coordinator` in the Normal state, and
  /// every subscriber was told so.
  bool all_follow(const std::string& coordinator) {
    for (auto& [id, n] : nodes) {
      auto v = view_of(id);
      if (v.state != "normal" || v.coordinator != coordinator
          || told[id] != coordinator)
        return false;
    }
    return true;
  }

  bool step_until(const std::string& coordinator, millis limit) {
    for (millis waited = 0; waited < limit; waited += step_ms) {
      step();
      if (all_follow(coordinator))
        return true;
    }
    return false;
  }

private:
  static void stop(node& n) {
    for (auto h : {caf::actor_cast<caf::actor>(n.elect),
                   caf::actor_cast<caf::actor>(n.members),
                   caf::actor_cast<caf::actor>(n.bridge)})
      caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  }
};

} // namespace

TEST_CASE("election actor: three nodes elect the highest, tell subscribers, "
          "and elect again when it crashes",
          "[election]") {
  election_cluster c;
  c.start("n1", {});
  c.start("n2", {"n1"});
  c.start("n3", {"n1"});
  REQUIRE(c.step_until("n3", 5000));
  CHECK(c.view_of("n3").members == std::vector<std::string>{"n1", "n2"});

  c.crash("n3");
  // Membership declares n3 dead after 1200 ms of silence, or bully's own
  // probe notices first; either way n2 takes over.
  REQUIRE(c.step_until("n2", 5000));
  CHECK(c.view_of("n1").algorithm == "bully");
}
