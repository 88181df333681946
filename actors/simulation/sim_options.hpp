#pragma once
// What a whole-cluster simulation runs (options) and what it measured
// (report). Everything derives from the seed, so a seed replays a run.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "causal/causal_machine.hpp"
#include "dice.pb.h"
#include "simulation/sim_network.hpp"
#include "common/time.hpp"
#include "membership/membership_state.hpp"
#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_counters.hpp"
#include "simulation/sim_timeline.hpp"

namespace dice {

struct sim_options {
  std::uint64_t seed = 1;
  std::size_t nodes = 4;
  std::size_t tasks = 12;
  /// Virtual time one execution takes.
  millis task_ms = 300;
  /// Submissions start once membership has formed, spread over this span.
  millis submit_at_ms = 1500;
  millis submit_spread_ms = 1500;
  link_faults faults;
  /// Transient execution failures (never on the last allowed attempt, so
  /// every task can still end DONE).
  double fail_probability = 0;
  /// Crash-and-restart events; a crashed node stays down for down_ms and
  /// comes back with a new incarnation and an empty replica, or (journal)
  /// the replica its journal held when it crashed.
  std::size_t crashes = 0;
  millis down_ms = 2000;
  /// Each node keeps a journal (in memory) across its crashes and restores
  /// it at restart, as dice-node does.
  bool journal = false;
  /// Each node's clock runs ahead of virtual time by 0 to this much, drawn
  /// anew at each start: clocks disagree by up to this much, and a
  /// restarted node's clock may be behind the times in its journal.
  millis clock_skew_ms = 0;
  /// A crash waits this long after the previous restart (catch-up time).
  millis settle_ms = 1500;
  /// One partition into two halves, healed after partition_ms.
  bool partition = false;
  millis partition_ms = 2500;
  /// Tasks removed (removeByID) by some node during the run.
  std::size_t removes = 0;
  /// Per-task policies: this share of the tasks is delayed (not before
  /// their submit plus up to delay_max_ms), this share expires (at their
  /// submit plus up to expire_max_ms; many never start). Every execution
  /// is checked against them, and retries against queue.retry_backoff_ms.
  double delayed = 0;
  millis delay_max_ms = 3000;
  double expiring = 0;
  millis expire_max_ms = 3000;
  /// Every third task names one cluster-wide lock, and no two of them may
  /// run at once.
  bool locks = false;
  /// The super-peer election every node runs (--super-peers); on, queue
  /// broadcasts go through the super-peers.
  super_peer_config super_peers;
  /// Broadcasts go to an IPv4 multicast group, one datagram each, every
  /// node's copy drawn on its own link (--multicast; needs super-peers off,
  /// as dice-node does).
  bool multicast = false;
  /// Holders that resend a causal event a digest lacks, besides its origin
  /// (--event-resenders; 0: every holder, as before there were few).
  std::size_t event_resenders = causal_config{}.resenders;
  /// Faults happen before this; afterwards the cluster must converge alone.
  millis faults_until_ms = 6000;
  /// Once converged, run this much longer (time for retention to pass).
  millis linger_ms = 0;
  /// Give up (and report non-convergence) after this.
  millis max_time_ms = 90'000;
  millis tick_ms = 5;
  /// Every node's first incarnation (dice-node takes the start time in ms,
  /// 13 digits, so origins on the wire are as long as a real node's).
  std::uint64_t first_incarnation = 1;
  /// Run the queue's coordinator role with a perfect election: each node's
  /// coordinator is the highest id it sees alive (what bully settles on),
  /// so partitions have one each and a crashed coordinator is replaced.
  /// Off: no election, every node recovers and compacts for itself.
  bool coordinator = false;
  /// Sample a timeline (sim_report::timeline) every this many ms of virtual
  /// time; 0: none.
  millis timeline_every_ms = 0;
  queue_config queue;
  membership_config membership;

  sim_options();
};

struct sim_report {
  std::uint64_t seed = 0;
  std::size_t tasks = 0;     // submitted
  std::size_t accepted = 0;  // acknowledged: another replica held it
  std::size_t removed = 0;
  std::size_t done = 0;      // DONE on the final replicas
  std::size_t expired = 0;   // EXPIRED on the final replicas
  /// Accepted tasks a final replica forgot (they ended, then their
  /// retention passed), summed over the replicas.
  std::size_t forgotten = 0;
  /// Tasks whose spec the first final replica still holds.
  std::size_t held = 0;
  std::size_t executions = 0;
  /// Executions beyond one per executed task (re-executions after a crash or
  /// a lost claim, canceled ones included).
  std::size_t duplicates = 0;
  /// DONE reports beyond one per task.
  std::size_t duplicate_completions = 0;
  bool converged = false;
  millis converged_at_ms = 0;
  millis makespan_ms = 0;
  // Traffic: queue messages (ENQUEUE, DEQUEUE, REMOVE, INFO end/re-queue,
  // unknown-task resolution, sync) apart from RUNNING heartbeats and from
  // membership heartbeats. Counted per message sent (a broadcast is one).
  std::uint64_t queue_messages = 0;
  std::uint64_t running_heartbeats = 0;
  /// Acks of ENQUEUEs (unicast, a few per submit), apart from the rest.
  std::uint64_t acks = 0;
  std::uint64_t sync_messages = 0;
  std::uint64_t membership_heartbeats = 0;
  std::uint64_t queue_bytes = 0; // on the wire, every copy
  /// Datagrams carrying queue traffic each node handed to the network,
  /// every copy (what a node pays per task: N-1 per broadcast sent direct,
  /// two when a member sends through super-peers).
  std::map<std::string, std::uint64_t> queue_datagrams_by_node;
  /// Broadcast datagrams carrying several queue messages (bundles), and
  /// those of them carrying two or more DEQUEUEs (claims lost together).
  std::uint64_t bundles = 0;
  std::uint64_t bundles_with_claims = 0;
  /// Queue messages sent, by body (e.g. "dequeue", "info DONE").
  std::map<std::string, std::uint64_t> by_kind;
  /// The same, every copy: datagrams handed to the network, by what they
  /// carried (a bundle counts once for each message it carries).
  std::map<std::string, std::uint64_t> copies_by_kind;
  double messages_per_task = 0;
  double heartbeats_per_task = 0;
  double bytes_per_task = 0;
  /// queue_datagrams_by_node per task: the mean over the nodes, the
  /// busiest node's (a super-peer's, with super-peers) and the median
  /// node's (a member's).
  double node_datagrams_per_task = 0;
  double busiest_node_datagrams_per_task = 0;
  double median_node_datagrams_per_task = 0;
  /// Every datagram a node handed to the network (any kind, heartbeats
  /// included; a multicast one counts once) and every one the network
  /// handed it, by node: what a node spends on traffic in all.
  std::map<std::string, std::uint64_t> sent_by_node, received_by_node;
  /// Their means over the nodes, per task, and the busiest node's.
  double node_sent_per_task = 0;
  double node_received_per_task = 0;
  double busiest_node_sent_per_task = 0;
  double busiest_node_received_per_task = 0;
  std::uint64_t crashes = 0;
  /// Death verdicts given a node whose process ran:
  /// with any, two nodes may hold one lock, so locks go unchecked.
  std::uint64_t wrong_death_verdicts = 0;
  /// When they were given (virtual ms since the start), in order.
  std::vector<millis> wrong_death_times_ms;
  std::uint64_t snapshots = 0;
  /// The largest datagram carrying a membership heartbeat (peers and
  /// version vector, with the header fields), sealed, as sent.
  std::size_t largest_heartbeat_bytes = 0;
  /// Bytes of every datagram copy that carried a membership heartbeat.
  std::uint64_t heartbeat_bytes = 0;
  // Summed over the live nodes' queue counters.
  std::uint64_t canceled = 0, requeues = 0, reclaims = 0, claims_lost = 0;
  std::uint64_t claims = 0, matched_claims = 0;
  /// Invariant violations, each a one-line description; empty when sound.
  std::vector<std::string> violations;
  /// Samples every sim_options::timeline_every_ms, the last at the end.
  sim_timeline timeline;
  /// Every live replica, task by task, when the run did not converge.
  std::string details;

  std::string summary() const;
  /// Adds a live node's queue counters to the sums above.
  void add(const queue_counters& c);
  /// One queue message sent (a broadcast counts once): to the traffic
  /// sums by kind.
  void count_sent(const wire::Message& m, std::size_t copies);
  /// One broadcast datagram bundling several messages.
  void count_bundle(const wire::Message& bundle);
  /// Takes the traffic fields of `t` (what count_sent, count_bundle and
  /// the heartbeat and byte sums gathered).
  void take_traffic(const sim_report& t);
};

} // namespace dice
