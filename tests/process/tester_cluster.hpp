#pragma once
// Helpers of the dice test process tests: tester nodes on loopback, sample
// projects, submitting through the CLI and reading reports.
#include <string>
#include <vector>

#include "cluster.hpp"

namespace dice::test {

/// Tester nodes t-0 ... t-(n-1) on loopback, each with its own data and
/// work dir (work-ID under the cluster's dir), told about t-0; waits until
/// every node knows every other's blob address (GET /network).
std::vector<node_process*> start_testers(cluster& c, std::size_t n,
                                         std::vector<std::string> extra = {});


/// A project of `modules` test files with `tests` passing tests each,
/// every test sleeping `sleep_s` seconds.
std::string make_project(const temp_dir& dir, const std::string& name, int modules,
                         int tests, double sleep_s);

/// The evaluation report from `n`, once it is done (or the deadline).
nlohmann::json report_when_done(node_process& n, const std::string& id, millis timeout);

/// Waits up to `timeout` until `n`'s report of evaluation `id` shows a
/// module running on node `runner`.
bool wait_running_on(node_process& n, const std::string& id, const std::string& runner,
                     millis timeout);

/// Submits `project` through the CLI to `n` without waiting; the id.
std::string submit(cluster& c, node_process& n, const std::string& project,
                   const std::string& log);

/// Workspaces (ws-*) and clones (clone-*) left in a node's work dir.
std::size_t workspaces_left(const std::string& work_dir);

} // namespace dice::test
