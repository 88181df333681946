#include "node/node.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <stdexcept>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "broadcast_bridge/incarnation_probe.hpp"
#include "broadcast_bridge/keyring_file.hpp"
#include "broadcast_bridge/udp_transport.hpp"
#include "broadcast_bridge/wire_budget.hpp"
#include "vocabulary/runner_capabilities.hpp"

namespace dice {

namespace {

/// Runs `probe` over `net` until it is done, then stops the transport
/// again (the bridge starts it anew). Blocks the caller at most the
/// probe's window.
void run_probe(transport& net, incarnation_probe& probe) {
  using clock = std::chrono::steady_clock;
  auto origin = clock::now();
  auto now = [origin] {
    return static_cast<millis>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 clock::now() - origin)
                                 .count());
  };
  std::mutex mtx;
  std::condition_variable arrived;
  std::vector<datagram> inbox;
  net.start([&](std::vector<datagram> batch) {
    std::lock_guard<std::mutex> guard{mtx};
    for (auto& d : batch)
      inbox.push_back(std::move(d));
    arrived.notify_one();
  });
  for (;;) {
    for (auto& [to, bytes] : probe.due(now())) {
      if (to.empty())
        net.broadcast({}, bytes); // the multicast group
      else
        net.send_to(to, bytes);
    }
    std::vector<datagram> got;
    {
      std::unique_lock<std::mutex> lock{mtx};
      auto wait = std::max<millis>(probe.next_wakeup() - now(), 0);
      arrived.wait_for(lock, std::chrono::milliseconds(wait),
                       [&] { return !inbox.empty(); });
      got.swap(inbox);
    }
    for (const auto& d : got)
      probe.on_datagram(d, now());
    if (probe.done(now()))
      break;
  }
  // Joins the receiving thread: nothing touches inbox afterwards.
  net.stop();
}

std::uint64_t random_nonce() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

} // namespace

node::node(caf::actor_system& sys, node_config cfg, node_world world)
  : cfg_(std::move(cfg)),
    clock_(world.clock ? std::move(world.clock) : wall_clock_ms),
    // Without a data dir, the start time orders incarnations across
    // restarts, unless a peer heard a later one (the clock was set back):
    // see the probe below.
    incarnation_(static_cast<std::uint64_t>(clock_())) {
  if (auto problem = cfg_.problem(); !problem.empty())
    throw std::runtime_error(problem);
  std::shared_ptr<replica_journal> journal;
  if (!cfg_.data_dir.empty()) {
    data_ = std::make_unique<data_dir>(cfg_.data_dir, incarnation_);
    incarnation_ = data_->incarnation();
    auto path = data_->file("replica.journal");
    journal = std::make_shared<replica_journal>(
      journal_options{path, cfg_.sync, cfg_.sync_batch_ms},
      world.open_journal ? world.open_journal(path) : open_disk_file(path));
  }
  // The keyring kept in the data dir (written by every runtime change)
  // replaces --cluster-key-file, whose key may since have been rotated away.
  keyring start_keys(cfg_.cluster_key);
  if (data_) {
    std::string err;
    auto file = cfg_.keyring_file();
    if (auto ring = load_keyring(file, err)) {
      spdlog::info("keyring: using {} ({} key{}, primary {}) instead of "
                   "--cluster-key-file", file, ring->size(),
                   ring->size() == 1 ? "" : "s", ring->primary_id());
      if (!cfg_.cluster_key.empty() && !ring->holds(keyring::id_of(cfg_.cluster_key)))
        spdlog::warn("keyring: the key of --cluster-key-file ({}) is not in {} "
                     "(it was rotated away)", keyring::id_of(cfg_.cluster_key), file);
      start_keys = std::move(*ring);
    } else if (!err.empty()) {
      throw std::runtime_error(err);
    }
  }
  keys_ = std::make_shared<published_keyring>(start_keys);
  if (cfg_.shell.enabled())
    cfg_.kinds.add("shell", request_function([shell = cfg_.shell](
                              const execution_request& req,
                              const cancel_token& cancel) {
      return run_shell(shell, req.payload, cancel, req.parents);
    }));
  // dice test: every node keeps and serves blobs and takes evaluations
  // (recorded as no-op `evaluation` tasks); only --tester runs test code.
  std::string http_addr;
  if (cfg_.http)
    http_addr = (cfg_.http->host == "0.0.0.0" ? cfg_.advertised().host
                                               : cfg_.http->host)
                + ":" + std::to_string(cfg_.http->port);
  tester_ = make_tester_parts(cfg_.tester, cfg_.id, http_addr,
                              cfg_.api.tls() ? cfg_.api.tls_trust_file() : "",
                              keys_, cfg_.data_dir);
  cfg_.kinds.add(evaluation_kind, [](const std::string&, const cancel_token&) {
    return task_outcome::success("recorded");
  });
  if (cfg_.tester.enabled)
    cfg_.kinds.add("test", [runner = tester_->runner](const std::string& payload,
                                                      const cancel_token& cancel) {
      return runner->run(payload, cancel);
    });
  auto net = std::move(world.net);
  if (!net) {
    udp_options opts;
    opts.listen = cfg_.listen;
    opts.multicast_group = cfg_.multicast;
    net = std::make_shared<udp_transport>(opts);
  }
  auto addr = cfg_.advertised().to_string();
  if (!data_ && cfg_.incarnation_probe_ms > 0) {
    // Memory only: what the peers heard of this id, before anything is
    // built from the incarnation (bridge, membership, queue origin, mutex).
    incarnation_probe_config pc;
    pc.self = bridge_identity{cfg_.cluster_id, cfg_.id, addr, incarnation_};
    pc.keys = start_keys;
    pc.limits = cfg_.limits;
    for (const auto& p : cfg_.peers)
      pc.peers.push_back(p.to_string());
    pc.group = cfg_.multicast.has_value();
    pc.nonce = random_nonce();
    pc.window_ms = cfg_.incarnation_probe_ms;
    incarnation_probe probe{std::move(pc), 0};
    run_probe(*net, probe);
    incarnation_ = probe.incarnation();
  }
  bridge_config bc;
  bridge_identity bc_self{cfg_.cluster_id, cfg_.id, addr, incarnation_};
  bc.self = bc_self;
  bc.keys = std::move(start_keys);
  bc.keyring_file = cfg_.keyring_file();
  bc.published = keys_;
  bc.limits = cfg_.limits;
  bc.net = std::move(net);
  bc.clock = clock_;
  if (data_)
    bc.replay_file = data_->file("replay.floors");
  bridge_ = spawn_broadcast_bridge(sys, std::move(bc));
  membership_actor_config mc;
  mc.self_id = cfg_.id;
  mc.self_addr = addr;
  mc.incarnation = incarnation_;
  mc.timing = cfg_.timing;
  mc.clock = clock_;
  mc.on_fatal = [bridge = bridge_, user = cfg_.on_fatal](const std::string& why) {
    caf::anon_send_exit(bridge, caf::exit_reason::user_shutdown);
    if (user)
      user(why);
  };
  for (auto& p : cfg_.peers)
    mc.seeds.push_back(p.to_string());
  members_ = spawn_membership(sys, bridge_, std::move(mc));
  tester_actor_ = spawn_tester_actor(sys, bridge_, tester_);
  // Kinds no function of this process serves go to the workers connected
  // to its API, while one serves them.
  worker_hub_config wc;
  wc.board = cfg_.workers;
  wc.board.own_kinds = cfg_.kinds.names();
  wc.board.id_prefix = std::to_string(incarnation_) + "-";
  wc.own = cfg_.runner();
  wc.clock = clock_;
  workers_ = spawn_worker_hub(sys, std::move(wc));
  auto kinds = cfg_.kinds;
  kinds.set_outside(worker_kind(workers_));
  exec_ = world.spawn_executor
            ? world.spawn_executor(sys, cfg_.queue.slots, std::move(kinds))
            : spawn_executor(sys, cfg_.queue.slots, std::move(kinds));
  queue_actor_config qc;
  qc.node_id = cfg_.id;
  qc.incarnation = incarnation_;
  qc.queue = cfg_.queue;
  qc.clock = clock_;
  qc.queue.wire_budget = body_budget(bc_self, cfg_.limits);
  if (cfg_.limits.bundle_bytes > 0) {
    // What a heartbeat frame leaves for the version vector (queue_config).
    const auto rest = defaults::bundle_bytes - queue_config{}.heartbeat_versions_bytes;
    qc.queue.heartbeat_versions_bytes =
      cfg_.limits.bundle_bytes > rest ? cfg_.limits.bundle_bytes - rest : 0;
  }
  qc.queue.runner = cfg_.runner();
  // The ranking's first criterion made real: blobs this node holds.
  qc.queue.objects_held = [blobs = tester_->blobs](const wire::TaskSpec& t) {
    std::uint32_t n = 0;
    for (const auto& sha : t.blobs())
      n += blobs->has(sha) ? 1 : 0;
    return n;
  };
  // A task naming locks is claimed only once they are this node's.
  auto owners = std::make_shared<lock_owners>();
  qc.queue.take_locks = [owners, clock = clock_](const wire::TaskSpec& t,
                                                 std::uint32_t attempt) {
    return owners->try_take(task_owner(t.id(), attempt),
                            {t.locks().begin(), t.locks().end()}, clock());
  };
  qc.journal = std::move(journal);
  board_ = std::make_shared<stats_board>();
  qc.board = board_;
  // Told of peers, or of a group where they gather: before meeting one,
  // the node is not alone.
  qc.joins = !cfg_.peers.empty() || cfg_.multicast.has_value();
  if (world.trace_queue)
    qc.trace = std::make_shared<queue_trace>(std::move(world.trace_queue));
  election_actor_config ec;
  ec.self_id = cfg_.id;
  ec.algorithm = cfg_.election_algorithm;
  ec.timing = cfg_.election;
  ec.clock = clock_;
  election_ = spawn_election(sys, std::move(ec), bridge_, members_);
  // The queue acts as coordinator (recovery, housekeeping) when elected.
  qc.elector = election_;
  queue_ = spawn_replicated_queue(sys, std::move(qc), bridge_, members_, exec_);
  caf::anon_send(workers_, subscribe_atom_v, caf::actor_cast<runner_listener>(queue_));
  mutex_actor_config mx;
  mx.self_id = cfg_.id;
  mx.algorithm = cfg_.mutex_algorithm;
  mx.timing = cfg_.mutex;
  mx.clock = clock_;
  // A restarted node must not take answers to its previous life's requests.
  mx.timing.request_base = incarnation_ << 20;
  mx.owners = owners;
  mx.idle_ms = cfg_.task_lock_idle_ms;
  mutex_ = spawn_mutex(sys, std::move(mx), bridge_, members_, election_, queue_);
  causal_actor_config cc;
  cc.self_id = cfg_.id;
  cc.tuning = cfg_.causal;
  cc.clock = clock_;
  causal_ = spawn_causal(sys, std::move(cc), bridge_, members_);
}

node::~node() {
  stop();
}

void node::stop() {
  if (mutex_)
    caf::anon_send_exit(mutex_, caf::exit_reason::user_shutdown);
  mutex_ = nullptr;
  if (causal_)
    caf::anon_send_exit(causal_, caf::exit_reason::user_shutdown);
  causal_ = nullptr;
  if (election_)
    caf::anon_send_exit(election_, caf::exit_reason::user_shutdown);
  election_ = nullptr;
  if (queue_)
    caf::anon_send_exit(queue_, caf::exit_reason::user_shutdown);
  if (exec_)
    caf::anon_send_exit(exec_, caf::exit_reason::user_shutdown);
  if (workers_)
    caf::anon_send_exit(workers_, caf::exit_reason::user_shutdown);
  workers_ = nullptr;
  if (tester_actor_)
    caf::anon_send_exit(tester_actor_, caf::exit_reason::user_shutdown);
  tester_actor_ = nullptr;
  queue_ = nullptr;
  exec_ = nullptr;
  if (members_)
    caf::anon_send_exit(members_, caf::exit_reason::user_shutdown);
  if (bridge_)
    caf::anon_send_exit(bridge_, caf::exit_reason::user_shutdown);
  members_ = nullptr;
  bridge_ = nullptr;
}

} // namespace dice
