#pragma once
// A deterministic simulation of a whole DiCE cluster: N queue_nodes with
// their membership over the simulated network, in virtual time, with a
// simulated executor, crashes with restarts, partitions, loss, duplication
// and reordering. No threads, no sockets, no clocks: a seed replays a run.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "broadcast_bridge/bridge_state.hpp"
#include "simulation/memory_journal.hpp"
#include "simulation/sim_network.hpp"
#include "membership/membership_state.hpp"
#include "queue_node/queue_node.hpp"
#include "simulation/sim_options.hpp"

namespace dice {

class sim_cluster {
public:
  explicit sim_cluster(sim_options opts);

  // -- driving ------------------------------------------------------------

  /// Advances virtual time to `t`, delivering and ticking on the way.
  void run_until(millis t);
  millis now() const { return now_; }
  /// Node i's clock: virtual time and its skew.
  millis clock_of(std::size_t i) const { return local(nodes_.at(i)); }

  /// Submits at node `i`; returns the task id.
  std::string submit(std::size_t i, wire::TaskSpec spec);
  void remove(std::size_t i, const std::string& task_id);
  void crash(std::size_t i);
  void restart(std::size_t i);
  void partition(const std::vector<std::vector<std::size_t>>& groups);
  void heal();
  /// Every live node handles what waits in its subsystems' mailboxes and
  /// sends what that leads to: before reading results that must be
  /// complete (converged(), report()).
  void drain();

  // -- observing ----------------------------------------------------------

  std::size_t size() const { return nodes_.size(); }
  bool is_up(std::size_t i) const { return nodes_[i].up; }
  queue_node& node(std::size_t i) { return *nodes_[i].queue; }
  sim_network& network() { return net_; }

  /// Every live replica identical, and every task on it ended (DONE, or
  /// REMOVED if removed), and every accepted task present.
  bool converged() const;
  /// Every live replica, task by task, for diagnosis.
  std::string dump() const;
  /// Fills the report (violations included) from the current state.
  sim_report report() const;

  /// Adds a sample of the run so far to the timeline (also taken every
  /// sim_options::timeline_every_ms by run_until).
  void sample_timeline();
  const sim_timeline& timeline() const { return timeline_; }

  const std::map<std::string, std::size_t>& executions() const {
    return executions_;
  }

private:
  struct execution {
    std::uint32_t attempt;
    millis ends;
    bool ok;
    millis started = 0;
  };
  struct sim_node {
    std::string id;
    std::uint64_t incarnation = 1;
    bool up = true;
    std::uint64_t sequence = 0;
    millis next_heartbeat = 0;
    millis next_failure_check = 0;
    std::unique_ptr<membership_state> membership;
    std::unique_ptr<queue_node> queue;
    std::map<std::string, execution> running;
    // Executions started beyond the node's slots (prefetched claims): they
    // run in order as slots free, as in the executor's queue.
    std::deque<std::pair<std::string, std::uint32_t>> queued;
    std::string coordinator; // as last told to the queue
    millis skew = 0;         // its clock minus virtual time
    // Survives crashes (sim_options::journal).
    std::unique_ptr<memory_journal> journal;
  };

  millis local(const sim_node& n) const { return now_ + n.skew; }

  void boot(sim_node& n);
  void step();
  void deliver(const sim_delivery& d);
  void flush(sim_node& n);
  void send_heartbeat(sim_node& n);
  void finish_executions(sim_node& n);
  // Runs queued executions while the node has a free slot.
  void run_queued(sim_node& n);
  // The oracle election of sim_options::coordinator.
  void elect(sim_node& n);
  std::string encode(sim_node& n, wire::Message m);
  std::size_t index_of(const std::string& id) const;
  bool chance(double p);
  // Parses a datagram once for all its receivers (a broadcast reaches every
  // node with the same bytes): the messages it carries (a bundle's parts,
  // as the bridge unbundles them); nullptr if malformed.
  std::shared_ptr<const std::vector<wire::Message>>
  parsed(const std::string& bytes);
  // Packs a node's broadcasts of one flush into datagrams as the bridge
  // does (bundle.hpp, within its byte budget), so a lost datagram loses
  // every message in it, several claims included.
  void broadcast_bundled(sim_node& n, std::vector<wire::Message> parts);

  struct parsed_entry {
    // nullptr: malformed. Shared with the mailboxes still holding parts.
    std::shared_ptr<const std::vector<wire::Message>> parts;
    millis used = 0;
  };

  sim_options opts_;
  sim_network net_;
  std::mt19937_64 rng_;
  millis now_ = 0;
  std::vector<sim_node> nodes_;
  std::unordered_map<std::string, std::size_t> index_;
  std::unordered_map<std::string, parsed_entry> parsed_;
  millis next_parsed_sweep_ = 0;

  // Checks an execution about to start against its task's policy (delay,
  // expiry, and the not-before time of a re-queued attempt as the node
  // knew it when it claimed); false if it expired.
  bool check_start(const sim_node& n, const std::string& task_id,
                   std::uint32_t attempt);
  // True if `q` forgot the task (the number its enqueuer gave it).
  bool forgotten_by(const queue_node& q, const std::string& task_id) const;
  // Notes what node `n` learns from `m` that check_start needs: the
  // not-before times of re-queued attempts, and when it claimed one.
  void note_policy(const sim_node& n, const wire::Message& m, bool sent);

  std::set<std::string> submitted_, accepted_, removed_;
  // The policy of each submitted task, and when each task's last failed
  // attempt (by number) ended.
  std::map<std::string, wire::TaskSpec> specs_;
  // Per (node, task, attempt): the latest not-before time the node heard
  // before it claimed the attempt, and whether it has claimed it.
  struct attempt_seen {
    millis not_before = 0;
    bool claimed = false;
  };
  std::map<std::tuple<std::string, std::string, std::uint32_t>, attempt_seen>
    attempts_seen_;
  std::vector<std::string> policy_violations_;
  std::map<std::string, std::vector<wire::OpId>> remove_ops_;
  std::map<std::string, std::size_t> executions_;
  std::map<std::string, std::size_t> completions_;
  std::uint64_t crashes_ = 0;
  sim_report traffic_;
  millis first_submit_ = -1;

  // The timeline: who finished each task first, and running totals that
  // survive crashes (a restarted node's counters start at 0).
  sim_timeline timeline_;
  millis next_sample_ = 0;
  std::set<std::string> finished_;
  std::vector<std::uint64_t> done_by_;
  std::uint64_t claims_lost_retired_ = 0;
  std::uint64_t duplicates_ = 0;
};

/// Runs the scripted scenario of `opts` (submissions, removes, crashes,
/// partition) until the cluster converges or max_time_ms passes.
sim_report run_simulation(const sim_options& opts);

} // namespace dice
