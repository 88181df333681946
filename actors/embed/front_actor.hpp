#pragma once
// The front actor: the node's public actor interface (dice/actors.hpp) in
// front of its internal actors. It checks a request, then asks the
// replicated queue, the causal actor or the evaluation worker and answers
// when they do (request/then, or delegation): it never blocks. It listens
// to the queue's task events and the causal deliveries and passes them to
// its subscribers and to those awaiting a task's end.
#include <functional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "causal/causal_actor.hpp"
#include "common/time.hpp"
#include "dice/actors.hpp"
#include "embed/task_ends.hpp"
#include "node/http_config.hpp"
#include "queue/replicated_queue.hpp"

namespace dice::embed {

/// What the front asks of the replicated queue: a part of its interface
/// (a replicated_queue handle converts to it; a test's stand-in needs no more).
using queue_part = caf::typed_actor<
  caf::reacts_to<dice::subscribe_atom, task_listener>,
  caf::replies_to<dice::submit_atom, std::vector<wire::TaskSpec>,
                  caf::timestamp>::with<submit_receipt>,
  caf::replies_to<dice::submit_atom, std::uint64_t>::with<bool>,
  caf::replies_to<dice::cancel_atom, std::string>::with<bool>,
  caf::replies_to<dice::remove_atom, std::string>::with<bool>,
  caf::replies_to<dice::tasks_atom, task_query>::with<std::vector<task_row>>,
  // what this node and its live peers run (a kind a worker serves, say)
  caf::replies_to<dice::runners_atom>::with<std::vector<runner_capabilities>>>;

/// What the front asks of the causal actor.
using causal_part = caf::typed_actor<
  caf::replies_to<dice::publish_atom, std::string, std::string>::with<
    causal_delivery>,
  caf::reacts_to<dice::subscribe_atom, causal_listener>>;

/// Submits evaluations (evaluation_worker.hpp).
using evaluation_actor = caf::typed_actor<
  caf::replies_to<evaluate_atom, std::string, evaluation_options>::with<std::string>>;

/// The front's whole interface: the public one, and what it hears as a
/// listener of the queue and of the causal actor.
using front_actor = node_actor::extend<
  caf::reacts_to<dice::task_event_atom, task_row>,
  caf::reacts_to<dice::causal_atom, causal_delivery>>;

struct front_config {
  /// Whether this node runs a kind itself. A submit of another is taken if
  /// some live member runs it (a worker serves it there), as POST /tasks
  /// decides, and refused otherwise.
  std::function<bool(const std::string&)> runs;
  /// How long the queue may take to accept a submit (--http-submit-accept-ms):
  /// it refuses the submit whole after that, and the front answers busy.
  millis accept_ms = http_config{}.submit_accept_ms;
  /// How long past accept_ms the front waits for the queue's answer (as
  /// POST /tasks does): no answer by then is busy.
  millis answer_margin_ms = 5000;
  std::size_t ended_limit = task_ends::default_ended_limit;
  std::size_t waiting_limit = task_ends::default_waiting_limit;
  std::function<millis()> clock; // the wall clock if unset
};

struct front_targets {
  queue_part queue;
  causal_part events;
  evaluation_actor evaluations;
};

/// Spawns the front and subscribes it to the queue and the causal actor.
front_actor spawn_front(caf::actor_system& sys, front_config cfg, front_targets to);

} // namespace dice::embed
