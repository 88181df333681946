#pragma once
// What a node is built on, which the world around it provides: the network,
// the clock, the disk under the journal and the executor of task code.
// dice-node and the embedding leave it empty (UDP, the wall clock, files,
// slot threads); the seeded simulations give a simulated network, virtual
// time, a simulated disk and an executor in virtual time, so that they run
// this same composition (node.hpp) under CAF's test coordinator.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "broadcast_bridge/transport.hpp"
#include "common/time.hpp"
#include "executor/executor.hpp"
#include "journal/journal_file.hpp"
#include "queue/queue_trace.hpp"

namespace dice {

struct node_world {
  /// None: UDP on the config's listen address (and multicast group).
  std::shared_ptr<transport> net;
  /// None: the wall clock. Every actor of the node reads this one.
  std::function<millis()> clock;
  /// Opens the journal's file at a path in the data dir. None: the file
  /// on disk (open_disk_file).
  std::function<std::unique_ptr<journal_file>(const std::string& path)>
    open_journal;
  /// None: spawn_executor, which runs task code on slot threads.
  std::function<executor(caf::actor_system&, std::size_t slots, task_kinds)>
    spawn_executor;
  /// Tests: sees every input of the queue's subsystems (queue_trace.hpp);
  /// it needs a scheduler that runs every actor on one thread.
  queue_trace::sink trace_queue;
};

} // namespace dice
