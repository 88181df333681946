#pragma once
// A deterministic cluster of mutex state machines over sim_network, for the
// property tests and bench/mutex: virtual time, seeded loss, duplication,
// delay (so reordering), crashes and partitions. Each node runs a workload:
// think, ask for a random resource, hold it a while, leave it. Views come
// from what the harness knows (a failure detector that is right after
// detect_ms): each node sees the live nodes it can reach; central's
// coordinator is the lowest of them. Safety (never two holders of one
// resource) is checked after every delivery, tick and workload step.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "simulation/sim_network.hpp"
#include "mutex/mutex.hpp"

namespace dice {

struct mutex_sim_config {
  std::string algorithm = "ricart-agrawala";
  std::size_t nodes = 5;
  std::uint64_t seed = 1;
  mutex_config mutex = fresh_cluster();
  link_faults faults{0, 0, 1, 10};
  std::size_t resources = 2;
  /// Pause between a release and the next request: uniform in [0, 2 think].
  millis think_ms = 50;
  /// How long a holder stays inside: uniform in [1, 2 hold].
  millis hold_ms = 20;
  /// How long after a crash, restart, partition or heal the views show it.
  millis detect_ms = 300;
  /// Every delivery, grant and view change, for debugging a failing seed.
  std::function<void(const std::string&)> trace;

  /// The machines' defaults, but voting need not abstain at start: nobody
  /// voted before the first run.
  static mutex_config fresh_cluster() {
    mutex_config c;
    c.abstain_at_start = false;
    return c;
  }
};

class mutex_sim {
public:
  explicit mutex_sim(mutex_sim_config cfg);

  /// "n000", "n001", ...
  const std::vector<std::string>& ids() const { return ids_; }
  millis now() const { return now_; }

  void run_until(millis until);

  /// The node stops; what it held is gone with it.
  void crash(const std::string& id);
  /// A new incarnation: fresh machine, later request numbers.
  void restart(const std::string& id);
  void partition(const std::vector<std::vector<std::string>>& groups);
  void heal();
  void set_faults(link_faults f);
  bool is_up(const std::string& id) const { return nodes_.at(id).up; }

  /// Waits are measured from here on (or from the request, if later).
  void mark_settled();
  /// The longest wait for a grant since mark_settled(), pending ones
  /// included (measured up to now).
  millis longest_wait_since_mark() const;

  /// First safety violation seen ("" if none).
  const std::string& violation() const { return violation_; }
  std::uint64_t entries() const { return entries_; }
  /// Holds ended because the algorithm took them back (voting's lease).
  std::uint64_t lost() const { return lost_; }
  /// Datagrams sent (a broadcast counts once per receiver).
  std::uint64_t messages() const { return net_.counters().sent; }
  /// Mean ms from request to grant over all entries.
  double mean_wait_ms() const {
    return entries_ ? static_cast<double>(wait_sum_) / static_cast<double>(entries_) : 0.0;
  }
  mutex_state& node(const std::string& id) { return *nodes_.at(id).machine; }
  std::string describe() const;

private:
  enum class phase { thinking, waiting, holding };
  struct sim_node {
    std::unique_ptr<mutex_state> machine;
    bool up = true;
    phase ph = phase::thinking;
    millis until = 0;      // end of thinking or holding
    millis asked_at = 0;
    std::string resource;
    std::optional<millis> tick_at;
  };

  void step(millis t);
  void after(const std::string& id);
  void flush(const std::string& id);
  void work(const std::string& id);
  void check();
  void schedule_views();
  void feed_view(const std::string& id);
  std::vector<std::string> reachable(const std::string& id) const;
  void trace(const std::string& line) const;
  millis draw(millis lo, millis hi);

  mutex_sim_config cfg_;
  sim_network net_;
  std::mt19937_64 rng_;
  std::vector<std::string> ids_;
  std::map<std::string, sim_node> nodes_;
  std::vector<std::vector<std::string>> groups_; // empty: no partition
  std::multimap<millis, int> view_updates_;
  millis now_ = 0;
  std::optional<millis> mark_;
  std::uint64_t entries_ = 0;
  std::uint64_t lost_ = 0;
  std::uint64_t wait_sum_ = 0;
  millis longest_wait_ = 0;
  std::uint64_t incarnations_ = 0;
  std::string violation_;
};

} // namespace dice
