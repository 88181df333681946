#pragma once
// The worker hub actor: drives the worker board (worker_board.hpp) for the
// HTTP API's /workers routes and the executor's slots, and tells the queue
// what this node runs whenever the kinds its workers serve change.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "executor/task_kinds.hpp"
#include "queue/replicated_queue.hpp"
#include "vocabulary/runner_capabilities.hpp"
#include "workers/job_waiter.hpp"
#include "workers/worker_board.hpp"
#include "type_ids.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::worker_job)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::job_end)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::worker_joined)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::worker_take)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::worker_report)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::worker_finish)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<dice::job_waiter>)

namespace dice {

using worker_hub = caf::typed_actor<
  // a slot's execution of a served kind, and where its slot waits
  caf::reacts_to<run_atom, worker_job, std::shared_ptr<job_waiter>>,
  // the slot gave it up (canceled, or its time limit)
  caf::reacts_to<cancel_atom, std::uint64_t>,
  // a worker joins: kinds, concurrency, name
  caf::replies_to<join_atom, std::vector<std::string>, std::uint64_t,
                  std::string>::with<worker_joined>,
  // a worker asks for up to N jobs, waiting up to the ms given
  caf::replies_to<take_atom, std::string, std::uint64_t, millis>::with<worker_take>,
  caf::replies_to<finish_atom, std::string, job_end>::with<worker_finish>,
  caf::replies_to<leave_atom, std::string>::with<bool>,
  caf::replies_to<workers_atom>::with<worker_report>,
  caf::reacts_to<subscribe_atom, runner_listener>,
  caf::reacts_to<tick_atom>,                            // leases
  caf::reacts_to<take_atom, std::string, std::uint64_t>>; // a take's wait ended

struct worker_hub_config {
  worker_board_config board;
  /// What the node runs itself; the workers' kinds are added to it.
  runner_capabilities own;
  millis max_wait_ms = 30000; // a take waits no longer
  std::function<millis()> clock; // the wall clock if unset
};

worker_hub spawn_worker_hub(caf::actor_system& sys, worker_hub_config cfg);

/// The slots' way to the hub: an execution of a kind no function of this
/// process serves becomes a job, and the slot waits for its end.
outside_function worker_kind(worker_hub hub);

} // namespace dice
