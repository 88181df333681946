#include "simulation/actor_cluster.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <tuple>
#include <stdexcept>

#include <stdlib.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "broadcast_bridge/bundle.hpp"
#include "broadcast_bridge/keyring.hpp"
#include "common/caf_setup.hpp"
#include "known_tasks/task_state.hpp"
#include "node/node.hpp"
#include "simulation/sim_disk.hpp"
#include "simulation/sim_executor.hpp"
#include "simulation/sim_transport.hpp"
#include "vocabulary/queue_messages.hpp"

namespace dice {

namespace {

struct sent_traffic {
  std::uint64_t datagrams = 0;
  sim_report sums; // by kind (sim_report::count_sent)
};

// Every node of a cluster seals with this key.
const std::string sim_cluster_key = "sim-key";

// Where node "nK" listens: 10.1.K/250.K%250, and back.
std::string addr_of(const std::string& id) {
  auto k = std::stoi(id.substr(1));
  return "10.1." + std::to_string(k / 250) + "." + std::to_string(k % 250)
         + ":7400";
}
std::string node_at(const std::string& addr) {
  int hi = 0, lo = 0;
  if (std::sscanf(addr.c_str(), "10.1.%d.%d", &hi, &lo) != 2)
    return addr;
  return "n" + std::to_string(hi * 250 + lo);
}

/// Counts what a node sends, by reading the envelopes it hands on, and
/// what it receives, and loses what the test's message filter names.
class counting_transport : public transport {
public:
  counting_transport(std::shared_ptr<transport> inner, sent_traffic* t,
                     std::string id, const actor_cluster::message_filter* drop,
                     bool multicast)
    : inner_(std::move(inner)), t_(t), id_(std::move(id)), drop_(drop),
      multicast_(multicast) {
  }
  void start(receive_handler h) override {
    inner_->start([h = std::move(h), t = t_, id = id_](std::vector<datagram> got) {
      t->sums.received_by_node[id] += got.size();
      h(std::move(got));
    });
  }
  void stop() override { inner_->stop(); }
  bool send_to(const std::string& addr, const std::string& bytes) override {
    count(bytes, 1);
    if (!*drop_)
      return inner_->send_to(addr, bytes);
    auto kept = without_dropped(addr, bytes);
    return !kept || inner_->send_to(addr, *kept);
  }
  std::size_t broadcast(const std::vector<std::string>& targets,
                        const std::string& bytes) override {
    // A multicast datagram leaves once, whoever receives it.
    count(bytes, multicast_ ? 1 : targets.size());
    if (!*drop_)
      return inner_->broadcast(targets, bytes);
    std::size_t sent = 0;
    for (const auto& t : targets) {
      auto kept = without_dropped(t, bytes);
      sent += !kept || inner_->send_to(t, *kept) ? 1 : 0;
    }
    return sent;
  }

private:
  // The datagram for `to` without the messages the filter drops, sealed
  // again under the same header (a bundle keeps its other parts); nullopt
  // when nothing is left.
  std::optional<std::string> without_dropped(const std::string& to,
                                             const std::string& bytes) {
    wire::Envelope env;
    wire::Message outer;
    if (!env.ParseFromString(bytes) || !outer.ParseFromString(env.message()))
      return bytes;
    auto peer = node_at(to);
    if (!outer.has_bundle()) {
      if ((*drop_)(id_, peer, outer))
        return std::nullopt;
      return bytes;
    }
    auto whole = unbundle(outer);
    wire::Bundle kept;
    for (std::size_t i = 0; i < whole.size(); ++i)
      if (!(*drop_)(id_, peer, whole[i]))
        *kept.add_parts() = outer.bundle().parts(static_cast<int>(i));
    if (kept.parts_size() == outer.bundle().parts_size())
      return bytes;
    if (kept.parts_size() == 0)
      return std::nullopt;
    *outer.mutable_bundle() = std::move(kept);
    env.set_message(outer.SerializeAsString());
    auto sig = sealer_.sign(env.message());
    env.set_auth_tag(sig.tag);
    env.set_key_id(sig.id_bytes);
    return env.SerializeAsString();
  }

  void count(const std::string& bytes, std::size_t copies) {
    t_->datagrams += copies;
    t_->sums.sent_by_node[id_] += copies;
    wire::Envelope env;
    wire::Message outer;
    if (!env.ParseFromString(bytes) || !outer.ParseFromString(env.message()))
      return;
    // Each queue message of a datagram once, membership heartbeats per
    // copy, bytes of queue traffic per copy.
    auto& sums = t_->sums;
    if (outer.has_bundle())
      sums.count_bundle(outer);
    bool queue_traffic = false;
    for (const auto& m : unbundle(std::move(outer))) {
      if (m.has_heartbeat()) {
        sums.membership_heartbeats += copies;
        sums.heartbeat_bytes += copies * bytes.size();
        sums.largest_heartbeat_bytes =
          std::max(sums.largest_heartbeat_bytes, bytes.size());
      }
      if (classify(m) == queue_message::none)
        continue;
      queue_traffic = true;
      sums.count_sent(m, copies);
    }
    if (queue_traffic) {
      sums.queue_bytes += copies * bytes.size();
      sums.queue_datagrams_by_node[id_] += copies;
    }
  }
  std::shared_ptr<transport> inner_;
  sent_traffic* t_;
  std::string id_;
  const actor_cluster::message_filter* drop_;
  bool multicast_;
  keyring sealer_{sim_cluster_key}; // reseals what the filter cut
};

struct node_slot {
  std::string addr;
  millis skew = 0;            // its clock minus virtual time
  std::uint64_t incarnation = 0;
  std::unique_ptr<sim_disk> disk; // with a journal: under its data dir
  std::unique_ptr<node> running; // none while crashed
  std::optional<queue_config> queue; // its own settings, else the cluster's
};

} // namespace

struct actor_cluster::impl {
  // Declaration order: the hub outlives the actor system, whose actors'
  // transports point into it.
  sim_hub hub;
  actor_cluster::message_filter drop; // messages the test loses; as the hub
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  actor_cluster_options opts;
  std::mt19937_64 rng;
  std::string root; // data dirs and tester work dirs, removed at the end
  std::map<std::string, node_slot> nodes;
  sim_runs runs;
  std::set<std::string> acknowledged;
  std::size_t unanswered = 0;
  sent_traffic sent;
  std::uint64_t wrong_deaths = 0;
  std::vector<millis> wrong_deaths_at; // since the start, of each
  static constexpr millis start_ms = 1'000'000; // the virtual clock's
  // The not-before of the last READY state of (node, task, attempt) each
  // node's replica merged: what its ready queue waited for.
  std::map<std::tuple<std::string, std::string, std::uint32_t>, millis> ready_not_before;
  std::set<std::string> ended; // tasks some replica merged an end of

  explicit impl(actor_cluster_options o)
    : hub(o.seed),
      sys(deterministic(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())),
      opts(std::move(o)),
      rng(opts.seed ^ 0x5eed'c0de'0000'0001ULL) {
    hub.multicast = opts.multicast;
    // The syncer of `batch` runs on a thread of its own, in wall time.
    if (opts.journal && opts.sync == journal_sync::batch)
      throw std::invalid_argument("a simulated journal syncs always or none");
    hub.network().set_default_faults(opts.faults);
    hub.now = start_ms;
    runs.now = [this] { return hub.now; };
    if (opts.fail_probability > 0)
      runs.fails = [this](const execution_request& r) {
        return r.attempt < opts.queue.max_attempts
               && std::uniform_real_distribution<double>(0, 1)(rng)
                    < opts.fail_probability;
      };
    spdlog::set_level(spdlog::level::warn); // every node logs to this process
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/dice-sim-XXXXXX";
    if (!::mkdtemp(templ.data()))
      throw std::runtime_error("cannot create " + templ);
    root = templ;
  }

  ~impl() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }

  node& at(const std::string& id) {
    auto& n = nodes.at(id);
    if (!n.running)
      throw std::logic_error("node " + id + " is down");
    return *n.running;
  }

  // Runs a request to one of a node's actors to its answer (the actors run
  // on this thread: one pass of the scheduler answers it).
  template <class Result, class Handle, class... Ts>
  Result ask(const Handle& to, Ts... xs) {
    auto out = std::make_shared<std::optional<Result>>();
    sys.spawn([out, to, xs...](caf::event_based_actor* self) {
      self->request(to, caf::infinite, xs...).then([out](Result& r) {
        *out = std::move(r);
      });
    });
    sched.run();
    if (!*out)
      throw std::runtime_error("a node's actor did not answer");
    return std::move(**out);
  }
};

actor_cluster::actor_cluster(actor_cluster_options opts)
  : impl_(std::make_unique<impl>(std::move(opts))) {
}

actor_cluster::actor_cluster(std::uint64_t seed, link_faults faults,
                             queue_config queue)
  : actor_cluster(actor_cluster_options{seed, faults, std::move(queue)}) {
}

actor_cluster::~actor_cluster() {
  for (auto& [id, n] : impl_->nodes)
    n.running.reset();
  impl_->sched.run();
}

void actor_cluster::start(const std::string& id) {
  auto& m = *impl_;
  auto& slot = m.nodes[id];
  if (slot.running)
    throw std::logic_error("node " + id + " is already up");
  if (slot.addr.empty()) {
    slot.addr = addr_of(id);
    slot.disk = std::make_unique<sim_disk>(m.rng());
    if (m.opts.clock_skew_ms > 0)
      slot.skew = static_cast<millis>(m.rng() % static_cast<std::uint64_t>(
                                                  m.opts.clock_skew_ms + 1));
  }
  auto clock = [hub = &m.hub, skew = slot.skew] { return hub->now + skew; };
  // A memory-only node's incarnation is its start time: a restart within
  // the same millisecond would repeat it (dice-node's probe asks the peers;
  // the simulation lets a millisecond pass).
  while (!m.opts.journal && static_cast<std::uint64_t>(clock()) <= slot.incarnation)
    step(1);
  node_config cfg;
  cfg.id = id;
  cfg.listen = *parse_endpoint(slot.addr);
  if (id != "n1")
    cfg.peers.push_back(*parse_endpoint(addr_of("n1")));
  cfg.http.reset();
  cfg.cluster_key = sim_cluster_key;
  cfg.incarnation_probe_ms = 0;
  cfg.queue = slot.queue.value_or(m.opts.queue);
  cfg.election_algorithm = m.opts.election;
  cfg.mutex_algorithm = m.opts.mutex;
  cfg.mutex = m.opts.mutex_timing;
  cfg.timing.super_peers = m.opts.super_peers;
  cfg.causal.resenders = m.opts.event_resenders;
  if (m.opts.multicast) // any group: the hub delivers it to every node
    cfg.multicast = parse_endpoint("239.255.0.1:7400");
  cfg.tester.work_dir = m.root + "/work-" + id;
  if (m.opts.journal) {
    cfg.data_dir = m.root + "/data-" + id;
    cfg.sync = m.opts.sync;
  }
  node_world world;
  world.open_journal = [disk = slot.disk.get()](const std::string& path) {
    return disk->open(path);
  };
  world.net = std::make_shared<counting_transport>(m.hub.make_transport(slot.addr),
                                                   &m.sent, id, &m.drop,
                                                   m.opts.multicast);
  world.clock = clock;
  world.spawn_executor = [log = &m.runs, id, clock](caf::actor_system& sys,
                                                    std::size_t slots, task_kinds) {
    return spawn_sim_executor(sys, slots, log, id, clock);
  };
  if (m.opts.trace)
    world.trace_queue = [f = m.opts.trace, id](const trace_point& p) {
      f(id, p);
    };
  slot.running = std::make_unique<node>(m.sys, std::move(cfg), std::move(world));
  slot.incarnation = slot.running->incarnation();
  // Counts the death verdicts this node gives a peer whose process runs.
  auto* mm = &m;
  auto watcher = m.sys.spawn([mm](caf::event_based_actor*) -> caf::behavior {
    return {
      [mm](peer_event_atom, const peer_change& ch) {
        auto it = mm->nodes.find(ch.id);
        if (ch.to == peer_state::dead && it != mm->nodes.end()
            && it->second.running && it->second.incarnation == ch.incarnation) {
          ++mm->wrong_deaths;
          mm->wrong_deaths_at.push_back(mm->hub.now - mm->start_ms);
        }
      },
    };
  });
  caf::anon_send(slot.running->members(), subscribe_atom_v,
                 caf::actor_cast<peer_listener>(watcher));
  auto tasks = m.sys.spawn([mm, id](caf::event_based_actor*) -> caf::behavior {
    return {
      [mm, id](task_event_atom, const task_row& row) {
        if (is_terminal(row.state.phase()))
          mm->ended.insert(row.spec.id());
        if (row.state.phase() == wire::READY)
          mm->ready_not_before[{id, row.spec.id(), row.state.attempt()}] =
            row.state.not_before_ms();
      },
    };
  });
  caf::anon_send(slot.running->queue(), subscribe_atom_v,
                 caf::actor_cast<task_listener>(tasks));
  m.sched.run();
}

millis actor_cluster::ready_not_before(const std::string& node,
                                      const std::string& task_id,
                                      std::uint32_t attempt) const {
  auto it = impl_->ready_not_before.find({node, task_id, attempt});
  return it == impl_->ready_not_before.end() ? 0 : it->second;
}

const std::set<std::string>& actor_cluster::ended() const {
  return impl_->ended;
}

millis actor_cluster::skew_of(const std::string& id) const {
  return impl_->nodes.at(id).skew;
}

void actor_cluster::crash(const std::string& id) {
  auto& n = impl_->nodes.at(id);
  impl_->hub.network().crash(n.addr);
  n.running.reset(); // stops its actors; its data dir stays
  n.disk->crash();    // with what its journal synced
  impl_->runs.end_all(id, impl_->hub.now);
  impl_->sched.run();
}

void actor_cluster::start(const std::string& id, queue_config queue) {
  impl_->nodes[id].queue = std::move(queue);
  start(id);
}

void actor_cluster::restart(const std::string& id) {
  impl_->hub.network().restart(impl_->nodes.at(id).addr);
  start(id);
}

void actor_cluster::step(millis ms) {
  // Millisecond by millisecond: a timer fires at most once per advance of
  // the test clock, and within one advance every due timer fires before any
  // due datagram is handed over, so a coarser step would end a claim window
  // before the rival claim that arrived inside it.
  auto& m = *impl_;
  for (millis left = ms; left > 0;) {
    auto d = std::min<millis>(left, 1);
    left -= d;
    m.hub.now += d;
    m.sched.clock().advance_time(std::chrono::milliseconds(d));
    m.hub.deliver_due(m.hub.now);
    m.sched.run();
  }
}

millis actor_cluster::now() const {
  return impl_->hub.now;
}

std::optional<std::vector<std::string>>
actor_cluster::submit_many(const std::string& id,
                           std::vector<wire::TaskSpec> specs,
                           std::string& error, millis limit_ms) {
  auto& m = *impl_;
  using answer = std::optional<std::vector<std::string>>;
  auto result = std::make_shared<answer>();
  auto failure = std::make_shared<std::string>();
  auto q = m.at(id).queue();
  auto* sys = &m.sys;
  m.sys.spawn([result, failure, q, specs, sys](caf::event_based_actor* self) {
    self->request(q, caf::infinite, submit_atom_v, specs)
      .then([result](std::vector<std::string>& ids) { *result = ids; },
            [result, failure, sys](caf::error& e) {
              *failure = sys->render(e);
              *result = std::vector<std::string>{};
            });
  });
  m.sched.run();
  for (millis waited = 0; waited < limit_ms && !*result; waited += 10)
    step(10);
  error = *failure;
  if (!error.empty())
    return std::nullopt;
  return *result;
}

std::optional<std::string> actor_cluster::submit(const std::string& id,
                                                 millis task_ms,
                                                 millis limit_ms) {
  wire::TaskSpec spec;
  spec.set_kind("sleep");
  spec.set_payload(std::to_string(task_ms));
  return submit(id, std::move(spec), limit_ms);
}

std::optional<std::string> actor_cluster::submit(const std::string& id,
                                                 wire::TaskSpec spec,
                                                 millis limit_ms) {
  auto& m = *impl_;
  auto result = std::make_shared<std::optional<std::string>>();
  auto q = m.at(id).queue();
  auto* acked = &m.acknowledged;
  auto* unanswered = &m.unanswered;
  ++*unanswered;
  m.sys.spawn([result, q, spec, acked, unanswered](caf::event_based_actor* self) {
    self->request(q, caf::infinite, submit_atom_v, spec)
      .then(
        [result, acked, unanswered](std::string& task_id) {
          --*unanswered;
          acked->insert(task_id);
          *result = task_id;
        },
        [unanswered](caf::error&) { --*unanswered; });
  });
  m.sched.run();
  for (millis waited = 0; waited < limit_ms && !*result; waited += 10)
    step(10);
  return *result;
}

const std::set<std::string>& actor_cluster::acknowledged() const {
  return impl_->acknowledged;
}

std::size_t actor_cluster::unanswered() const {
  return impl_->unanswered;
}

std::vector<task_row> actor_cluster::tasks_of(const std::string& id) {
  auto& m = *impl_;
  return m.ask<std::vector<task_row>>(m.at(id).queue(), tasks_atom_v, task_query{});
}

bool actor_cluster::remove(const std::string& id, const std::string& task_id) {
  auto& m = *impl_;
  return m.ask<bool>(m.at(id).queue(), remove_atom_v, task_id);
}

bool actor_cluster::cancel(const std::string& id, const std::string& task_id) {
  auto& m = *impl_;
  return m.ask<bool>(m.at(id).queue(), cancel_atom_v, task_id);
}

queue_counters actor_cluster::counters_of(const std::string& id) {
  auto& m = *impl_;
  return m.ask<queue_counters>(m.at(id).queue(), stats_atom_v);
}

std::vector<node_view> actor_cluster::view_of(const std::string& id) {
  auto& m = *impl_;
  return m.ask<std::vector<node_view>>(m.at(id).members(), nodes_atom_v);
}

std::optional<std::string> actor_cluster::coordinator_of(const std::string& id) {
  auto& m = *impl_;
  return m.ask<election_view>(m.at(id).elect(), election_atom_v).coordinator;
}

std::uint64_t actor_cluster::publish(const std::string& id,
                                     const std::string& topic,
                                     const std::string& data) {
  auto& m = *impl_;
  return m.ask<causal_delivery>(m.at(id).events(), publish_atom_v, topic, data).seq;
}

std::vector<std::string> actor_cluster::events_of(const std::string& id,
                                                  const std::string& topic) {
  auto& m = *impl_;
  std::vector<std::string> out;
  for (const auto& d : m.ask<std::vector<causal_delivery>>(
         m.at(id).events(), events_atom_v, topic, std::uint64_t{0}))
    out.push_back(d.origin + "#" + std::to_string(d.seq) + ":" + d.data);
  return out;
}

std::vector<std::string> actor_cluster::live_nodes() const {
  std::vector<std::string> ids;
  for (const auto& [id, n] : impl_->nodes)
    if (n.running)
      ids.push_back(id);
  return ids;
}

bool actor_cluster::is_up(const std::string& id) const {
  return impl_->nodes.at(id).running != nullptr;
}

void actor_cluster::set_faults(link_faults faults) {
  impl_->hub.network().set_default_faults(faults);
}

void actor_cluster::drop_messages(message_filter drop) {
  impl_->drop = std::move(drop);
}

void actor_cluster::fail_executions(failure_rule fails) {
  impl_->runs.fails = nullptr;
  if (fails)
    impl_->runs.fails = [fails](const execution_request& r) {
      return fails(r.task_id, r.attempt);
    };
}

void actor_cluster::partition(
  const std::vector<std::vector<std::string>>& groups) {
  std::vector<std::vector<std::string>> addrs;
  for (const auto& g : groups) {
    addrs.emplace_back();
    for (const auto& id : g)
      addrs.back().push_back(impl_->nodes.at(id).addr);
  }
  impl_->hub.network().partition(addrs);
}

void actor_cluster::heal() {
  impl_->hub.network().heal();
}

const std::map<std::string, int>& actor_cluster::executions() const {
  return impl_->runs.starts;
}

const std::vector<sim_run>& actor_cluster::runs() const {
  return impl_->runs.runs;
}

std::uint64_t actor_cluster::wrong_death_verdicts() const {
  return impl_->wrong_deaths;
}

const std::vector<millis>& actor_cluster::wrong_death_times() const {
  return impl_->wrong_deaths_at;
}

std::uint64_t actor_cluster::datagrams_sent() const {
  return impl_->sent.datagrams;
}

const sim_report& actor_cluster::traffic() const {
  return impl_->sent.sums;
}

} // namespace dice
