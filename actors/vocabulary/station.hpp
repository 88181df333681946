#pragma once
// Where the queue's events go: each subsystem of a node, the bridge, the
// executor and the user (queue_routes.hpp says which takes what).
#include <cstddef>
#include <cstdint>

namespace dice {

enum class station {
  communication,
  known_tasks,
  ready_queue,
  ranking,
  running_tasks,
  unknown_resolver,
  bridge,   // datagrams out
  executor, // executions
  world,    // the user: the node facade
};
constexpr std::size_t station_count = static_cast<std::size_t>(station::world) + 1;

/// The queue's own subsystems: the stations before the bridge.
constexpr bool is_subsystem(station s) {
  return s < station::bridge;
}

/// The seed of one subsystem's randomness, from the node's seed.
std::uint64_t subsystem_seed(std::uint64_t seed, station s);

} // namespace dice
