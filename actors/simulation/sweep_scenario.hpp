#pragma once
// The seeded sweeps' scenario, one per seed, mixing every fault the network
// can inject: 3-5 nodes, 8-12 tasks, loss 0-40%, duplication, reordering,
// a partition, crashes, removes, transient failures, 1-3 slots and 0-2
// prefetch seats. The node sweeps start from it and add journals, skewed
// clocks and a lock.
#include <cstdint>

#include "simulation/sim_options.hpp"

namespace dice {

inline sim_options sweep_scenario(std::uint64_t seed) {
  sim_options o;
  o.seed = seed;
  o.nodes = 3 + seed % 3;
  o.tasks = 8 + seed % 5;
  static const double losses[] = {0.0, 0.1, 0.25, 0.4};
  o.faults.loss = losses[seed % 4];
  o.faults.duplicate = seed % 5 == 1 ? 0.1 : 0.0;
  o.faults.min_delay = 1;
  o.faults.max_delay = seed % 2 == 0 ? 40 : 8; // wide spread: reordering
  o.partition = seed % 3 == 0;
  o.crashes = seed % 4 == 3 ? 2 : seed % 2;
  o.removes = seed % 5 == 0 ? 2 : 0;
  o.fail_probability = seed % 7 == 0 ? 0.2 : 0.0;
  // Production's range of slots and prefetch (claims ahead of execution).
  o.queue.slots = 1 + (seed / 3) % 3;
  o.queue.prefetch = (seed / 9) % 3;
  return o;
}

/// The policy sweeps' scenario: half the tasks delayed (up to 2 s), 40%
/// expiring (within 2.5 s; many before they can start), 30% of the
/// executions failing and retried after a 200 ms backoff, and clocks that
/// disagree by up to 400 ms in every other run (each node's own clock
/// decides its claims and starts).
inline sim_options policy_scenario(std::uint64_t seed) {
  auto o = sweep_scenario(seed);
  o.delayed = 0.5;
  o.delay_max_ms = 2000;
  o.expiring = 0.4;
  o.expire_max_ms = 2500;
  o.fail_probability = 0.3;
  o.queue.retry_backoff_ms = 200;
  o.clock_skew_ms = seed % 2 == 0 ? 400 : 0;
  return o;
}

/// A burst of 24 tasks within 100 ms onto nodes with two slots and two
/// prefetch seats each: several claims leave at once and share datagrams.
inline sim_options burst_scenario(std::uint64_t seed) {
  auto o = sweep_scenario(seed);
  o.tasks = 24;
  o.submit_spread_ms = 100;
  o.queue.slots = 2;
  o.queue.prefetch = 2;
  return o;
}

/// The retention sweeps' scenario: tasks forgotten 400 ms after they end
/// (forgotten_ids_ms keeps its default, 30 s), and time after convergence
/// for that to pass everywhere.
inline sim_options retention_scenario(std::uint64_t seed) {
  auto o = sweep_scenario(seed);
  o.queue.keep_finished_ms = 400;
  o.linger_ms = 400 + 2 * o.queue.forget_grid_ms + 1000;
  return o;
}

/// Retention against what a node brings back from its journal: one or two
/// nodes crash and stay down longer than the retention (2.5 s), then
/// restore the replica their journal held, with clocks that disagree by up
/// to a second and may be behind at restart.
inline sim_options journal_retention_scenario(std::uint64_t seed) {
  auto o = retention_scenario(seed);
  o.journal = true;
  o.clock_skew_ms = 1000;
  o.crashes = 1 + seed % 2;
  o.down_ms = 2500;
  o.faults_until_ms = 8000;
  o.linger_ms += o.clock_skew_ms;
  return o;
}

} // namespace dice
