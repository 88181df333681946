#pragma once
// Whole clusters of production nodes in one process: each node is
// dice::node (node/node.hpp), the composition dice-node runs (bridge with
// sealing and replay filtering, membership, the queue's subsystem actors,
// election, locks, causal events, workers, tester, the journal in a data
// dir), built on a simulated world: the seeded simulated network, virtual
// time, and an executor that runs a task for its payload's milliseconds of
// virtual time (sim_executor.hpp). CAF's test coordinator runs every actor
// on the calling thread and fires timers only as virtual time advances, so
// a seed replays the same run.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "journal/replica_journal.hpp"
#include "mutex/mutex.hpp"
#include "queue/queue_trace.hpp"
#include "queue/queue_interfaces.hpp"
#include "simulation/sim_executor.hpp"
#include "simulation/sim_network.hpp"
#include "simulation/sim_options.hpp"

namespace dice {

struct actor_cluster_options {
  std::uint64_t seed = 1;
  link_faults faults; // on every link
  queue_config queue;
  /// Each node keeps a data dir (its incarnation counter in real files
  /// under a temporary directory, its journal on a simulated disk): a
  /// restarted node restores its replica as dice-node does. Off: memory
  /// only.
  bool journal = false;
  /// The journal's --sync: `always`, or `none`, with which a crash loses
  /// what the disk had not written (sim_disk.hpp). `batch` syncs on a
  /// thread in wall time and cannot be simulated.
  journal_sync sync = journal_sync::always;
  /// Each node's clock runs ahead of virtual time by 0 to this much, drawn
  /// from the seed once per node.
  millis clock_skew_ms = 0;
  std::string election = "bully";
  /// The cluster-wide locks' algorithm (--mutex) and its timing.
  std::string mutex = default_mutex_algorithm;
  mutex_config mutex_timing;
  /// --super-peers on every node.
  super_peer_config super_peers;
  /// Broadcasts go to an IPv4 multicast group, one datagram each (every
  /// node runs with dice-node's --multicast); off, one per target.
  bool multicast = false;
  /// causal_config::resenders on every node (0: every holder resends).
  std::size_t event_resenders = causal_config{}.resenders;
  /// Each execution fails with this probability, but never on the last
  /// attempt queue.max_attempts allows, so every task can end DONE.
  double fail_probability = 0;
  /// Tests: sees every input of each node's queue subsystems, with the
  /// node's id (queue_trace.hpp).
  std::function<void(const std::string& node, const trace_point&)> trace;
};

class actor_cluster {
public:
  explicit actor_cluster(actor_cluster_options opts);
  /// Nodes with `queue` settings; faults apply to every link.
  actor_cluster(std::uint64_t seed, link_faults faults, queue_config queue);
  ~actor_cluster();
  actor_cluster(const actor_cluster&) = delete;
  actor_cluster& operator=(const actor_cluster&) = delete;

  /// Starts node `id` ("n1", "n2", ...); every node but n1 joins through n1.
  /// Its incarnation is its clock's time (or, with a journal, one above
  /// its previous start's), as dice-node's.
  void start(const std::string& id);
  /// The same with settings of its own (a battery level, a device class,
  /// slots), kept across restarts.
  void start(const std::string& id, queue_config queue);
  /// The machine dies: its actors stop, its datagrams stop, its disk keeps
  /// what its journal synced (and a seeded part of the rest).
  void crash(const std::string& id);
  /// A new process for a crashed node, with a later incarnation.
  void restart(const std::string& id);
  /// Advances virtual time by `ms`, one millisecond at a time, delivering
  /// datagrams and running every actor until all mailboxes are empty.
  void step(millis ms);
  millis now() const;

  /// Submits a sleep task of `task_ms` to node `id`; the task id once
  /// acknowledged, nullopt if not within `limit_ms` (0: do not wait; see
  /// acknowledged()).
  std::optional<std::string> submit(const std::string& id, millis task_ms,
                                    millis limit_ms = 2000);
  /// The same for any task (the executor runs it for the payload's ms).
  std::optional<std::string> submit(const std::string& id, wire::TaskSpec spec,
                                    millis limit_ms = 2000);
  /// Submits the tasks of `specs` to node `id` in one message (as a
  /// submit with a count does); their ids once all are acknowledged, the
  /// error's text if refused, nullopt if no answer within `limit_ms`.
  std::optional<std::vector<std::string>>
  submit_many(const std::string& id, std::vector<wire::TaskSpec> specs,
              std::string& error, millis limit_ms = 2000);
  /// Removes a task at node `id` (removeByID); false if it refused.
  bool remove(const std::string& id, const std::string& task_id);
  /// Cancels a task at node `id`, as a user does; false if it refused.
  bool cancel(const std::string& id, const std::string& task_id);
  /// Every submitted task acknowledged so far.
  const std::set<std::string>& acknowledged() const;
  /// Submissions neither acknowledged nor refused yet (a submitter that
  /// crashes refuses its pending ones).
  std::size_t unanswered() const;
  /// Node `id`'s replica, as its facade lists it.
  std::vector<task_row> tasks_of(const std::string& id);
  std::vector<std::string> live_nodes() const;
  bool is_up(const std::string& id) const;
  /// The not-before (node `node`'s clock) of the last READY state of the
  /// task's attempt that its replica merged: a retry's backoff; 0 if none.
  millis ready_not_before(const std::string& node, const std::string& task_id,
                          std::uint32_t attempt) const;
  /// Tasks some replica merged an end of (DONE, FAILED, EXPIRED, ...),
  /// however briefly it held them before forgetting them.
  const std::set<std::string>& ended() const;
  /// Node `id`'s clock minus virtual time (clock_skew_ms).
  millis skew_of(const std::string& id) const;
  /// Node `id`'s queue counters (since its last start).
  queue_counters counters_of(const std::string& id);
  /// Node `id`'s membership view (GET /nodes' rows: states, super-peers
  /// and attachments).
  std::vector<node_view> view_of(const std::string& id);
  /// The coordinator node `id`'s election names; nullopt while none.
  std::optional<std::string> coordinator_of(const std::string& id);
  /// Publishes a causal event at node `id`; its origin sequence number.
  std::uint64_t publish(const std::string& id, const std::string& topic,
                        const std::string& data);
  /// The causal events of `topic` node `id` delivered, in its order, as
  /// "origin#seq:data".
  std::vector<std::string> events_of(const std::string& id,
                                     const std::string& topic);
  void set_faults(link_faults faults);
  /// Which messages node `from` sends node `to` are lost: a filter by
  /// direction and kind of message (a bundle loses only the parts it
  /// names; the rest of the datagram still goes). Empty: none.
  using message_filter = std::function<bool(
    const std::string& from, const std::string& to, const wire::Message& m)>;
  void drop_messages(message_filter drop);
  /// Which executions fail, by task and attempt, in place of
  /// fail_probability's draw (the last attempt too: the task then ends
  /// FAILED). Empty: none.
  using failure_rule =
    std::function<bool(const std::string& task_id, std::uint32_t attempt)>;
  void fail_executions(failure_rule fails);
  void partition(const std::vector<std::vector<std::string>>& groups);
  void heal();

  /// Executions started per task id, cluster-wide.
  const std::map<std::string, int>& executions() const;
  /// Every execution with its node and virtual start and end.
  const std::vector<sim_run>& runs() const;
  /// Death verdicts a node gave a peer whose process was running (loss or
  /// a partition silenced it): the locks' failure detector erred.
  std::uint64_t wrong_death_verdicts() const;
  /// When each of them was given (virtual ms since the start), in order.
  const std::vector<millis>& wrong_death_times() const;
  /// Datagrams handed to the network (every kind, heartbeats included).
  std::uint64_t datagrams_sent() const;
  /// What the nodes sent, in a report's traffic fields (queue messages by
  /// kind, a broadcast counted once; RUNNING heartbeats, acks, syncs and
  /// membership heartbeats apart; bundles; bytes of queue traffic, every
  /// copy).
  const sim_report& traffic() const;

  struct impl;

private:
  std::unique_ptr<impl> impl_;
};

} // namespace dice
