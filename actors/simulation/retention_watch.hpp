#pragma once
// Retention as a user sees it, checked from each node's task listings taken
// as a simulation runs: a task that ended and then left a node's replica
// (its retention passed: forgotten) never comes back to that replica and
// is never started there again. A node restarted without a journal starts
// over; with one, what it forgot stays forgotten (the journal records it).
// A task a replica holds by id alone (its ENQUEUE lost there) is not yet
// that replica's own: its end leaving the replica is not the task
// forgotten there.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "known_tasks/task_query.hpp"
#include "simulation/sim_runs.hpp"

namespace dice {

class retention_watch {
public:
  /// Node `node` listed `rows` (its whole replica) at virtual time `now`.
  void listed(const std::string& node, millis now, const std::vector<task_row>& rows);
  /// Node `node` restarted, restoring its replica from a journal or not.
  void restarted(const std::string& node, bool journal);
  /// What went wrong: a task back on a replica that forgot it, or started
  /// by a node after it forgot it.
  std::vector<std::string> violations(const std::vector<sim_run>& runs) const;

private:
  struct node_view {
    std::set<std::string> ended_held;          // listed ended, last time
    std::map<std::string, millis> forgotten_at; // first listing without it
  };
  std::map<std::string, node_view> nodes_;
  std::vector<std::string> back_;
};

} // namespace dice
