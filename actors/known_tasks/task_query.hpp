#pragma once
// What the API asks of the replica: some tasks by id or state, or how many
// tasks are in each state. Answered inside known_tasks, so a request costs
// what it asks for, not a copy of the whole replica.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dice.pb.h"

namespace dice {

/// One task of the replica as the API shows it.
struct task_row {
  bool has_spec = false;
  wire::TaskSpec spec;
  wire::TaskState state;
  std::string owner; // enqueuer, or the coordinator that adopted it
};

/// The rows wanted: the tasks named in `ids` (every task if empty; unknown
/// ids are left out), and of those only the ones in `phase`, of `kind` and
/// claimed by `node`, for the filters set. Without ids the rows come in
/// id_before order, from the first id after `after` (if set), at most
/// `limit` of them (if set): a page.
struct task_query {
  std::vector<std::string> ids;
  std::optional<wire::TaskPhase> phase{};
  /// With phase RUNNING: only tasks claimed ahead (true) or only those
  /// whose execution began (false).
  std::optional<bool> claimed_ahead{};
  std::optional<std::string> kind{};
  std::optional<std::string> node{};
  std::optional<std::string> workflow{}; // the tasks of one workflow
  bool in_workflows = false; // only tasks of some workflow (GET /workflows)
  std::optional<std::string> after{};
  std::optional<std::size_t> limit{};

  static task_query of(std::string id) {
    task_query q;
    q.ids.push_back(std::move(id));
    return q;
  }
};

/// Tasks whose spec is known, per state (indexed by wire::TaskPhase);
/// schedules' records aside.
struct task_counts {
  std::array<std::size_t, wire::TaskPhase_ARRAYSIZE> by_phase{};
  /// Of by_phase[RUNNING], those whose execution has not begun.
  std::size_t claimed_ahead = 0;
  std::size_t total() const {
    std::size_t n = 0;
    for (auto k : by_phase)
      n += k;
    return n;
  }
};

} // namespace dice
