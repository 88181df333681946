#pragma once
// The evaluation worker: submits evaluations (dice test) for the front
// actor. Submitting packs the project, runs the runner's discovery of its
// modules and copies the blob to peers over HTTP: blocking work, so the
// worker is a detached actor on a thread of its own and the scheduler's
// threads never wait for it.
#include <memory>

#include <caf/fwd.hpp>

#include "embed/front_actor.hpp"

namespace dice {
class evaluation_service;
struct tester_config;
} // namespace dice

namespace dice::embed {

/// The worker answers (evaluate_atom, path, options) with the evaluation's
/// id, or a refusal: invalid (bad options, not a project) or busy.
/// `service` outlives its node only while the worker runs: stop the worker
/// (and wait for it) before the node.
evaluation_actor spawn_evaluation_worker(caf::actor_system& sys,
                                         std::shared_ptr<evaluation_service> service,
                                         const tester_config& cfg);

} // namespace dice::embed
