#pragma once
// A DiCE node: the actor set of one member of the cluster, spawned into an
// actor system. dice-node runs one; an embedding program can run its own.
#include <memory>

#include <caf/fwd.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "causal/causal_actor.hpp"
#include "election/election_actor.hpp"
#include "membership/membership.hpp"
#include "mutex/mutex_actor.hpp"
#include "queue/replicated_queue.hpp"
#include "queue/stats_board.hpp"
#include "common/data_dir.hpp"
#include "node/node_config.hpp"
#include "node/node_world.hpp"
#include "tester/tester_actor.hpp"
#include "workers/worker_hub.hpp"

namespace dice {

class node {
public:
  /// Binds the sockets and spawns the actors. Without a data dir it first
  /// asks the peers for this id's last incarnation, which blocks for up to
  /// cfg.incarnation_probe_ms (see incarnation_probe.hpp). Throws
  /// std::runtime_error with a one-line reason (bad config, port in use).
  /// `world` replaces the network, clock and executor (the simulations').
  node(caf::actor_system& sys, node_config cfg, node_world world = {});
  ~node();

  node(const node&) = delete;
  node& operator=(const node&) = delete;

  const node_config& config() const { return cfg_; }
  /// The clock every actor of this node reads.
  const std::function<millis()>& clock() const { return clock_; }
  std::uint64_t incarnation() const { return incarnation_; }
  broadcast_bridge bridge() const { return bridge_; }
  membership members() const { return members_; }
  executor exec() const { return exec_; }
  replicated_queue queue() const { return queue_; }
  /// What the queue's subsystems last posted: counters, and what this
  /// node and its live peers run (read without asking the queue).
  const stats_board& queue_board() const { return *board_; }
  election elect() const { return election_; }
  /// dice test: blobs, peers' blob addresses, the runner.
  const std::shared_ptr<tester_parts>& tester() const { return tester_; }
  mutex_actor locks() const { return mutex_; }
  causal_actor events() const { return causal_; }
  /// Processes outside this one serving task kinds (the /workers routes).
  worker_hub workers() const { return workers_; }

  /// The keyring in use, as the bridge last published it (the bridge owns
  /// it: change it by asking the bridge, keys_atom).
  const std::shared_ptr<published_keyring>& keys() const { return keys_; }

  /// Stops the actors and the transport; idempotent.
  void stop();

private:
  node_config cfg_;
  std::function<millis()> clock_;
  std::unique_ptr<data_dir> data_; // locked while the node runs
  std::uint64_t incarnation_;
  std::shared_ptr<published_keyring> keys_;
  broadcast_bridge bridge_;
  membership members_;
  executor exec_;
  std::shared_ptr<stats_board> board_;
  replicated_queue queue_;
  election election_;
  std::shared_ptr<tester_parts> tester_;
  tester_actor tester_actor_;
  mutex_actor mutex_;
  causal_actor causal_;
  worker_hub workers_;
};

} // namespace dice
