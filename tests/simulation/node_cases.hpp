#pragma once
// What the cases of production nodes (node_*_test.cpp) ask of an
// actor_cluster again and again: a started cluster, a sleep task, the runs
// and rows of one task, whether the replicas agree, and counts of claims
// and messages.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulation/actor_cluster.hpp"

namespace dice::test {

/// Starts n1..n`count` (each joins through n1) and steps `settle_ms`: long
/// enough for every node to have heard every other. Their ids.
inline std::vector<std::string> start_nodes(actor_cluster& c,
                                            std::size_t count,
                                            millis settle_ms = 1500) {
  std::vector<std::string> ids;
  for (std::size_t i = 1; i <= count; ++i) {
    ids.push_back("n" + std::to_string(i));
    c.start(ids.back());
  }
  c.step(settle_ms);
  return ids;
}

/// A task the simulated executor runs for `ms`.
inline wire::TaskSpec sleep_task(millis ms) {
  wire::TaskSpec s;
  s.set_kind("sleep");
  s.set_payload(std::to_string(ms));
  return s;
}

/// Submits `count` sleeps of `ms` to node `id`, one by one, each of which
/// must be acknowledged; their ids.
inline std::vector<std::string> submit_each(actor_cluster& c,
                                            const std::string& id, int count,
                                            millis ms) {
  std::vector<std::string> tasks;
  for (int i = 0; i < count; ++i) {
    auto task = c.submit(id, ms);
    REQUIRE(task);
    tasks.push_back(*task);
  }
  return tasks;
}

/// The executions of `task`, in the order they started; of one attempt
/// only if `attempt` is not 0.
inline std::vector<sim_run> runs_of(const actor_cluster& c,
                                    const std::string& task,
                                    std::uint32_t attempt = 0) {
  std::vector<sim_run> out;
  for (const auto& r : c.runs())
    if (r.task_id == task && (attempt == 0 || r.attempt == attempt))
      out.push_back(r);
  return out;
}

/// A sleep task of `ms` submitted at `at`, once one node started it
/// (within 500 ms): its id and that node.
struct started_task {
  std::string task, runner;
};
inline started_task submit_started(actor_cluster& c, const std::string& at,
                                   millis ms) {
  auto id = c.submit(at, ms);
  REQUIRE(id);
  c.step(500);
  auto runs = runs_of(c, *id);
  REQUIRE(runs.size() == 1);
  return {*id, runs[0].node};
}

/// The task's row in node `id`'s replica; nullopt if it holds none.
inline std::optional<task_row> find_row(actor_cluster& c, const std::string& id,
                                        const std::string& task) {
  for (auto& row : c.tasks_of(id))
    if (row.spec.id() == task)
      return row;
  return std::nullopt;
}

/// The same where the replica must hold the task: fails the test if not.
inline task_row row_of(actor_cluster& c, const std::string& id,
                       const std::string& task) {
  auto row = find_row(c, id, task);
  if (!row)
    FAIL("no task " << task << " on " << id);
  return *row;
}

/// How replica `rows` differs from `reference` (the first difference);
/// empty if they hold the same tasks in the same states.
inline std::string difference(const std::vector<task_row>& reference,
                              const std::vector<task_row>& rows) {
  if (rows.size() != reference.size())
    return std::to_string(rows.size()) + " tasks, not "
           + std::to_string(reference.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].spec.id() != reference[i].spec.id())
      return "row " + std::to_string(i) + " is " + rows[i].spec.id()
             + ", not " + reference[i].spec.id();
    if (rows[i].state.SerializeAsString()
        != reference[i].state.SerializeAsString())
      return "task " + rows[i].spec.id() + " is "
             + rows[i].state.ShortDebugString() + ", not "
             + reference[i].state.ShortDebugString();
  }
  return {};
}

/// Whether every live replica holds the same tasks in the same states.
inline bool converged(actor_cluster& c) {
  auto live = c.live_nodes();
  if (live.empty())
    return true;
  auto reference = c.tasks_of(live.front());
  for (const auto& id : live)
    if (!difference(reference, c.tasks_of(id)).empty())
      return false;
  return true;
}

/// Checks that every live replica equals the first one; a failure names
/// the node and what differs.
inline void check_converged(actor_cluster& c) {
  auto live = c.live_nodes();
  REQUIRE(!live.empty());
  auto reference = c.tasks_of(live.front());
  for (const auto& id : live) {
    CAPTURE(id, live.front());
    CHECK(difference(reference, c.tasks_of(id)) == "");
  }
}

/// A queue counter summed over the live nodes, e.g.
/// total(c, &queue_counters::claims).
inline std::uint64_t total(actor_cluster& c,
                           std::uint64_t queue_counters::*counter) {
  std::uint64_t n = 0;
  for (const auto& id : c.live_nodes())
    n += c.counters_of(id).*counter;
  return n;
}

/// Queue messages of `kind` the nodes sent ("do_you_know_this_task", ...;
/// a broadcast counts once).
inline std::uint64_t sent(const actor_cluster& c, const std::string& kind) {
  auto it = c.traffic().by_kind.find(kind);
  return it == c.traffic().by_kind.end() ? 0 : it->second;
}

} // namespace dice::test
