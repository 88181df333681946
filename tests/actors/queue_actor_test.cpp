// The replicated queue as real CAF actors: per node a bridge, membership,
// the queue facade with its seven subsystem actors, and an executor that
// "runs" a sleep task for its payload's milliseconds of virtual time. The
// nodes talk over the seeded simulated network under CAF's test
// coordinator: virtual time only, and a seed replays the same run.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
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
#include "broadcast_bridge/sim_transport.hpp"
#include "common/caf_setup.hpp"
#include "membership/membership.hpp"
#include "queue/replicated_queue.hpp"

using namespace dice;

namespace {

constexpr millis step_ms = 10;

caf::actor_system_config& deterministic(caf::actor_system_config& cfg) {
  register_message_types(cfg);
  cfg.set("scheduler.policy", caf::atom("testing"));
  cfg.set("logger.file-verbosity", caf::atom("quiet"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  return cfg;
}

/// Executions per task id, over the whole cluster (duplicates show here).
using execution_counts = std::map<std::string, int>;

struct sleeper_state {
  std::vector<execution_listener> listeners;
  std::set<std::pair<std::string, std::uint32_t>> canceled;
  static inline const char* name = "sleeper";
};

/// An executor in virtual time: a task ends `payload` ms after it starts,
/// unless canceled first.
executor spawn_sleeper(caf::actor_system& sys, std::string node,
                       execution_counts* counts) {
  using ptr = executor::stateful_pointer<sleeper_state>;
  return sys.spawn([node, counts](ptr self) -> executor::behavior_type {
    return {
      [=](run_atom, const execution_request& r) {
        ++(*counts)[r.task_id];
        self->state.canceled.erase({r.task_id, r.attempt});
        execution_result done{r.task_id, r.attempt, true, false,
                              "slept " + r.payload + " ms on " + node, "", 0, 0};
        self->delayed_send(self, std::chrono::milliseconds(std::stoll(r.payload)),
                           executed_atom_v, done);
      },
      [=](cancel_atom, const std::string& task_id) {
        for (std::uint32_t a = 0; a < 16; ++a)
          self->state.canceled.insert({task_id, a});
      },
      [=](subscribe_atom, execution_listener& who) {
        self->state.listeners.push_back(std::move(who));
      },
      [=](executed_atom, const execution_result& r) {
        if (self->state.canceled.count({r.task_id, r.attempt}) > 0)
          return;
        for (auto& who : self->state.listeners)
          self->send(who, executed_atom_v, r);
      },
      [](stats_atom) { return executor_stats{}; },
    };
  });
}

struct node_actors {
  std::string addr;
  broadcast_bridge bridge;
  membership members;
  executor exec;
  replicated_queue queue;
  bool up = true;
};

struct queue_cluster {
  sim_hub hub;
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::map<std::string, node_actors> nodes;
  execution_counts executions;

  queue_cluster(std::uint64_t seed, link_faults faults)
    : hub(seed),
      sys(deterministic(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    spdlog::set_level(spdlog::level::warn);
    hub.network().set_default_faults(faults);
    hub.now = 1'000'000;
  }

  ~queue_cluster() {
    for (auto& [id, n] : nodes)
      stop(n);
    sched.run();
  }

  static std::string addr_of(const std::string& id) {
    return "10.0.1." + id.substr(1) + ":7400";
  }

  void start(const std::string& id, std::uint64_t incarnation) {
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
    if (id != "n1")
      mc.seeds.push_back(addr_of("n1"));
    mc.clock = clock;
    auto members = spawn_membership(sys, bridge, std::move(mc));
    auto exec = spawn_sleeper(sys, id, &executions);
    queue_actor_config qc;
    qc.node_id = id;
    qc.incarnation = incarnation;
    qc.queue.slots = 1;
    qc.clock = clock;
    auto queue = spawn_replicated_queue(sys, qc, bridge, members, exec);
    nodes[id] = node_actors{addr, bridge, members, exec, queue, true};
    sched.run();
  }

  void crash(const std::string& id) {
    auto& n = nodes.at(id);
    hub.network().crash(n.addr);
    stop(n);
    n.up = false;
    sched.run();
  }

  void step() {
    hub.now += step_ms;
    sched.clock().advance_time(std::chrono::milliseconds(step_ms));
    hub.deliver_due(hub.now);
    sched.run();
  }

  /// Submits through a node's facade; the task id once acknowledged.
  std::optional<std::string> submit(const std::string& id, millis task_ms) {
    std::optional<std::string> result;
    wire::TaskSpec spec;
    spec.set_kind("sleep");
    spec.set_payload(std::to_string(task_ms));
    auto q = nodes.at(id).queue;
    sys.spawn([&, q, spec](caf::event_based_actor* self) {
      self->request(q, caf::infinite, submit_atom_v, spec)
        .then([&](std::string& task_id) { result = task_id; });
    });
    for (int i = 0; i < 200 && !result; ++i)
      step();
    return result;
  }

  std::vector<task_row> tasks_of(const std::string& id) {
    std::optional<std::vector<task_row>> rows;
    auto q = nodes.at(id).queue;
    sys.spawn([&, q](caf::event_based_actor* self) {
      self->request(q, caf::infinite, tasks_atom_v)
        .then([&](std::vector<task_row>& r) { rows = std::move(r); });
    });
    sched.run();
    REQUIRE(rows);
    return *rows;
  }

  /// True if every live replica holds `expected` tasks, all DONE.
  bool all_done_everywhere(std::size_t expected) {
    for (auto& [id, n] : nodes) {
      if (!n.up)
        continue;
      auto rows = tasks_of(id);
      if (rows.size() != expected)
        return false;
      for (auto& r : rows)
        if (!r.has_spec || r.state.phase() != wire::DONE)
          return false;
    }
    return true;
  }

private:
  static void stop(node_actors& n) {
    for (caf::actor a : {caf::actor_cast<caf::actor>(n.queue),
                         caf::actor_cast<caf::actor>(n.exec),
                         caf::actor_cast<caf::actor>(n.members),
                         caf::actor_cast<caf::actor>(n.bridge)})
      if (a)
        caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }
};

void run_workload(std::uint64_t seed, link_faults faults, bool crash_one) {
  INFO("seed " << seed);
  queue_cluster c(seed, faults);
  for (int i = 1; i <= 4; ++i)
    c.start("n" + std::to_string(i), 1);
  for (int i = 0; i < 100; ++i)
    c.step(); // everyone joins
  constexpr std::size_t tasks = 24;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < tasks; ++i) {
    auto id = c.submit("n1", 100);
    REQUIRE(id);
    ids.insert(*id);
  }
  if (crash_one) {
    for (int i = 0; i < 20; ++i)
      c.step();
    c.crash("n3"); // while it runs a task
  }
  bool done = false;
  for (int i = 0; i < 3000 && !done; ++i) {
    c.step();
    if (i % 50 == 49)
      done = c.all_done_everywhere(tasks);
  }
  REQUIRE(done);
  // Every replica names the same result for every task.
  auto reference = c.tasks_of("n1");
  for (auto& [id, n] : c.nodes) {
    if (!n.up)
      continue;
    auto rows = c.tasks_of(id);
    REQUIRE(rows.size() == reference.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      CHECK(ids.count(rows[i].spec.id()) == 1);
      CHECK(rows[i].state.result() == reference[i].state.result());
    }
  }
  std::size_t runs = 0;
  for (auto& [task, count] : c.executions)
    runs += static_cast<std::size_t>(count);
  if (!crash_one && faults.loss == 0)
    CHECK(runs == tasks); // loss-free: every task ran exactly once
  CHECK(runs >= tasks);
}

} // namespace

TEST_CASE("queue actors: four nodes run every task once on a loss-free network",
          "[queue][actors]") {
  run_workload(1, {0, 0, 1, 20}, false);
}

TEST_CASE("queue actors: under 20% loss with a node crashed mid-run every "
          "task ends DONE on every survivor",
          "[queue][actors]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    run_workload(seed, {0.2, 0.05, 1, 30}, true);
}
