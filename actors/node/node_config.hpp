#pragma once
// Everything a DiCE node is configured with; dice-node fills it from the
// command line and INI file, an embedding program fills it directly.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/incarnation_probe.hpp"
#include "causal/causal_machine.hpp"
#include "common/endpoint.hpp"
#include "election/election.hpp"
#include "executor/shell_kind.hpp"
#include "executor/task_kinds.hpp"
#include "vocabulary/runner_capabilities.hpp"
#include "node/http_config.hpp"
#include "journal/replica_journal.hpp"
#include "membership/membership_state.hpp"
#include "mutex/mutex.hpp"
#include "vocabulary/queue_config.hpp"
#include "tester/tester_config.hpp"
#include "workers/worker_board.hpp"

namespace dice {

struct node_config {
  std::string id;                        // unique in the cluster
  endpoint listen{"0.0.0.0", 7400};
  std::optional<endpoint> advertise;     // defaults to listen
  std::vector<endpoint> peers;           // seed peers
  std::optional<endpoint> multicast;     // broadcast via this IPv4 group
  std::optional<endpoint> http{endpoint{"127.0.0.1", 8400}}; // none: no API
  http_config api;                       // its limits, timeouts and token
  std::string cluster_id = defaults::cluster_id;
  /// The start key, unless the data dir holds a keyring (keyring_file()),
  /// which then replaces it; empty: no authentication.
  std::string cluster_key;
  bool insecure = false;                 // allow no key off loopback
  membership_config timing;
  bridge_limits limits;
  queue_config queue;                    // includes the executor's slots
  /// bully, ring, hs, invitation or echo; elects the coordinator.
  std::string election_algorithm = default_election_algorithm;
  election_config election;              // timing; echo's capacity
  /// central, voting, ricart-agrawala or token-ring: the cluster-wide
  /// locks of tasks and `dice lock`.
  std::string mutex_algorithm = default_mutex_algorithm;
  mutex_config mutex;                    // its timing
  /// A task lock held here that no ready task asked for within this is
  /// given back (queue.lock_recheck_ms: how often waiting tasks ask).
  millis task_lock_idle_ms = default_task_lock_idle_ms;
  causal_config causal;                  // causal events: digests, log bound
  task_kinds kinds = task_kinds::with_builtins();
  shell_config shell;                    // the `shell` kind, off by default
  worker_board_config workers;           // processes serving kinds via the API
  tester_config tester;                  // dice test; runs tests with --tester
  /// Where the replica's journal and the incarnation counter live; empty:
  /// memory only (the incarnation is then the start time, or one above the
  /// highest incarnation of this id the peers answer to a probe).
  std::string data_dir;
  /// Without a data dir: how long the start waits at most for the peers'
  /// answers (it stops once every peer asked answered); 0: no probe.
  millis incarnation_probe_ms = incarnation_probe_config{}.window_ms;
  journal_sync sync = journal_sync::batch;
  millis sync_batch_ms = journal_options{}.batch_ms;
  /// Told once, with a one-line reason, when the node must not go on (a
  /// live node holds its id); by then it has stopped sending. dice-node
  /// exits with an error.
  std::function<void(const std::string&)> on_fatal;

  /// Where the keyring lives across restarts (`<data-dir>/keyring`); empty
  /// without a data dir (keys changed at runtime are then lost on exit).
  std::string keyring_file() const;

  /// The address peers use to reach this node.
  endpoint advertised() const;
  /// What this node can run (its kinds, its shell allow list), as its
  /// heartbeats advertise it.
  runner_capabilities runner() const;

  /// Empty when the config can run, otherwise a one-line reason.
  std::string problem() const;
};

} // namespace dice
