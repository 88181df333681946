#pragma once
// A deterministic cluster of election state machines over sim_network, for
// property tests and the benchmark: virtual time, seeded faults, crashes and
// partitions. Views come from what the harness knows (a perfect failure
// detector): each node sees the live nodes it can reach. Safety is checked
// after every delivery and every tick.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "simulation/sim_network.hpp"
#include "election/election.hpp"

namespace dice {

struct election_sim_config {
  std::string algorithm = "bully";
  std::size_t nodes = 5;
  std::uint64_t seed = 1;
  election_config election;
  /// echo: capacity of node i (missing entries are 0).
  std::vector<std::uint32_t> capacities;
  link_faults faults{0, 0, 1, 10};
  /// Tell every node about crashes, restarts and partitions at once; when
  /// false the caller decides who learns when (feed_view).
  bool auto_views = true;
  /// Every delivery, tick and view change, for debugging a failing seed.
  std::function<void(const std::string&)> trace;
};

class election_sim {
public:
  explicit election_sim(election_sim_config cfg);

  /// "n000", "n001", ...: string order is number order.
  const std::vector<std::string>& ids() const { return ids_; }
  millis now() const { return now_; }

  /// Processes everything due up to `until`.
  void run_until(millis until);
  /// Runs until every group agrees (agreed()) or `limit`; the time it agreed.
  std::optional<millis> run_until_agreed(millis limit);

  void crash(const std::string& id);
  void restart(const std::string& id);
  /// As sim_network::partition; each node's view shrinks to its side.
  void partition(const std::vector<std::vector<std::string>>& groups);
  void heal();
  void set_faults(link_faults f);
  void feed_view(const std::string& id);
  /// `id` suspects the coordinator and starts an election now.
  void start_election(const std::string& id);
  void feed_views();

  bool is_up(const std::string& id) const { return up_.at(id); }
  election_state& node(const std::string& id) { return *nodes_.at(id); }
  const election_state& node(const std::string& id) const {
    return *nodes_.at(id);
  }
  std::vector<std::string> live() const;
  /// The sets of live nodes that can talk to each other.
  std::vector<std::vector<std::string>> components() const;
  /// In every component all nodes are Normal in one group whose coordinator
  /// is in the component (for invitation: and counts them all as members).
  bool agreed() const;
  /// The coordinator of the component holding `id`, once agreed.
  std::optional<std::string> coordinator_of(const std::string& id) const;

  /// First safety violation seen ("" if none): two Normal coordinators in
  /// one group (one component; for invitation, one group name).
  const std::string& violation() const { return violation_; }
  /// Datagrams sent (a broadcast counts once per receiver).
  std::uint64_t messages() const { return net_.counters().sent; }
  std::uint64_t malformed() const { return malformed_; }
  /// One line per node: state, coordinator, group (for failure messages).
  std::string describe() const;

private:
  std::unique_ptr<election_state> spawn(std::size_t index);
  const std::vector<std::string>& view_of(const std::string& id) const;
  void recompute_components();
  void flush(const std::string& id);
  void check_safety();
  bool step(millis until);

  election_sim_config cfg_;
  sim_network net_;
  std::vector<std::string> ids_;
  std::map<std::string, std::unique_ptr<election_state>> nodes_;
  std::map<std::string, bool> up_;
  std::map<std::string, std::uint64_t> stable_; // what survives a crash
  std::vector<std::vector<std::string>> partition_;
  std::vector<std::vector<std::string>> components_;
  std::map<std::string, std::size_t> component_of_;
  millis now_ = 0;
  std::uint64_t same_time_steps_ = 0;
  std::uint64_t malformed_ = 0;
  std::string violation_;
};

} // namespace dice
