// dice-sim: runs one seeded whole-cluster simulation and reports what it
// measured; the exit status says whether every invariant held.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "sim_cli.hpp"
#include "simulation/node_scenario.hpp"

namespace {

nlohmann::json to_json(const dice::sim_options& o, const dice::sim_report& r,
                       double wall_ms) {
  auto per_task = [&](double n) {
    return r.tasks == 0 ? 0.0 : n / static_cast<double>(r.tasks);
  };
  nlohmann::json j;
  j["seed"] = r.seed;
  j["nodes"] = o.nodes;
  j["loss"] = o.faults.loss;
  j["duplicate"] = o.faults.duplicate;
  j["partition_ms"] = o.partition ? o.partition_ms : 0;
  j["crashes"] = r.crashes;
  j["crashes_asked"] = o.crashes;
  j["wrong_death_verdicts"] = r.wrong_death_verdicts;
  // When they came: a formation, a burst, or spread over the run.
  if (const auto& at = r.wrong_death_times_ms; !at.empty())
    j["wrong_death_verdict_ms"] = {{"first", at.front()},
                                   {"median", at[at.size() / 2]},
                                   {"last", at.back()}};
  j["tasks"] = r.tasks;
  j["accepted"] = r.accepted;
  j["removed"] = r.removed;
  j["done"] = r.done;
  j["expired"] = r.expired;
  // With --linger-ms: accepted tasks the final replicas forgot (summed
  // over them), and those the first still holds.
  j["forgotten"] = r.forgotten;
  j["held"] = r.held;
  j["executions"] = r.executions;
  j["duplicates"] = r.duplicates;
  j["duplicate_rate"] = per_task(static_cast<double>(r.duplicates));
  j["duplicate_completions"] = r.duplicate_completions;
  j["canceled"] = r.canceled;
  j["requeues"] = r.requeues;
  j["converged"] = r.converged;
  j["makespan_ms"] = r.makespan_ms;
  j["messages_per_task"] = r.messages_per_task;
  j["running_heartbeats_per_task"] = r.heartbeats_per_task;
  j["acks"] = r.acks;
  j["bytes_per_task"] = r.bytes_per_task;
  j["node_datagrams_per_task"] = r.node_datagrams_per_task;
  j["busiest_node_datagrams_per_task"] = r.busiest_node_datagrams_per_task;
  j["median_node_datagrams_per_task"] = r.median_node_datagrams_per_task;
  // Every datagram, heartbeats included, a multicast one sent once.
  j["node_sent_per_task"] = r.node_sent_per_task;
  j["node_received_per_task"] = r.node_received_per_task;
  j["busiest_node_sent_per_task"] = r.busiest_node_sent_per_task;
  j["busiest_node_received_per_task"] = r.busiest_node_received_per_task;
  j["sync_messages"] = r.sync_messages;
  // Datagrams carrying several queue messages, and two or more claims.
  j["bundles"] = r.bundles;
  j["bundles_with_claims"] = r.bundles_with_claims;
  j["snapshots"] = r.snapshots;
  j["membership_heartbeats"] = r.membership_heartbeats;
  // Sealed, as sent: a heartbeat's mean size shows what its versions cost.
  j["heartbeat_bytes"] = r.heartbeat_bytes;
  j["largest_heartbeat_bytes"] = r.largest_heartbeat_bytes;
  j["sent_by_kind"] = r.by_kind;
  j["copies_by_kind"] = r.copies_by_kind;
  // A bounded list: a run that never converged lists every task per node.
  constexpr std::size_t shown = 20;
  j["violation_count"] = r.violations.size();
  j["violations"] = std::vector<std::string>(
    r.violations.begin(),
    r.violations.begin()
      + static_cast<std::ptrdiff_t>(std::min(shown, r.violations.size())));
  j["wall_ms"] = wall_ms;
  return j;
}

} // namespace

int main(int argc, char** argv) {
  dice::sim_cli cli;
  try {
    cli = dice::parse_sim_cli(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "dice-sim: " << e.what() << " (see --help)\n";
    return 2;
  }
  if (cli.help) {
    std::cout << cli.usage;
    return 0;
  }
  const auto& o = cli.sim;
  // Opened before the run: a bad path fails at once, not after it.
  std::ofstream timeline;
  if (!cli.timeline.empty()) {
    timeline.open(cli.timeline);
    if (!timeline) {
      std::cerr << "dice-sim: cannot write --timeline " << cli.timeline
                << "\n";
      return 2;
    }
  }
  if (!cli.json)
    std::cout << "dice-sim: seed " << o.seed << ", " << o.nodes << " nodes, "
              << o.tasks << " tasks, loss " << o.faults.loss << " ..."
              << std::endl;
  auto start = std::chrono::steady_clock::now();
  dice::sim_report r;
  try {
    r = dice::run_node_scenario(o);
  } catch (const std::exception& e) {
    std::cerr << "dice-sim: " << e.what() << "\n";
    return 2;
  }
  std::chrono::duration<double, std::milli> wall =
    std::chrono::steady_clock::now() - start;
  bool sound = r.converged && r.violations.empty();
  if (timeline.is_open()) {
    r.timeline.write_csv(timeline);
    timeline.close();
    if (!timeline) {
      std::cerr << "dice-sim: writing " << cli.timeline << " failed\n";
      return 2;
    }
  }
  if (cli.json) {
    std::cout << to_json(o, r, wall.count()).dump() << std::endl;
  } else {
    auto shown = r;
    if (shown.violations.size() > 20) {
      shown.violations.resize(20);
      shown.violations.push_back(
        "... " + std::to_string(r.violations.size() - 20) + " more");
    }
    std::cout << shown.summary() << "\n";
    // One node is down at a time and a crash waits for the last restart's
    // catch-up: a crash drawn while that is not so is skipped. Say so.
    if (r.crashes < o.crashes)
      std::cout << "note: " << r.crashes << " of " << o.crashes
                << " crashes happened; the others fell while a node was down "
                   "or within " << o.settle_ms << " ms of a restart and were "
                   "skipped (a shorter --down-ms makes room)\n";
    if (cli.dump && !r.details.empty())
      std::cout << r.details;
    std::printf("%s in %.1f s wall\n",
                sound ? "OK: converged, no violation" : "FAILED",
                wall.count() / 1000.0);
  }
  return sound ? 0 : 1;
}
