#pragma once
// The node as an actor: a typed handle for a CAF application's own actors.
// They ask it with request(...).then(...) and hear task events, task ends
// and causal messages as messages; nothing blocks. dice::embed::node::actor()
// gives the handle after start(); the node's blocking calls use it too.
//
//   using namespace dice::embed;
//   self->request(n, std::chrono::seconds(10), submit_atom_v, task{"upper", "hi"})
//     .then([=](const std::string& id) {
//       self->request(n, caf::infinite, await_atom_v, id)
//         .then([=](const task_event& end) { /* end.state, end.result */ });
//     },
//     [=](const caf::error& e) { /* self->system().render(e): the reason */ });
//   self->send(n, subscribe_atom_v, caf::actor_cast<task_observer>(self));
//
// A refusal is an error of refusal_category whose code is a `refusal` and
// whose text (actor_system::render, once prepare() ran) is the reason.
// Subscriptions end when the subscriber terminates, or on unsubscribe.
#include <cstdint>
#include <optional>
#include <string>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/error.hpp>
#include <caf/make_message.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "dice/atoms.hpp"
#include "dice/evaluation.hpp"
#include "dice/refusal.hpp"
#include "dice/task.hpp"

// Values between actors of one process, never serialized: no inspect().
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::embed::task)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::embed::task_event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::optional<dice::embed::task_event>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::embed::message)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::embed::evaluation_options)

namespace dice::embed {

/// Hears every task event of the node (a host actor's handler for
/// task_event; caf::actor_cast<task_observer>(self) for an untyped one).
using task_observer = caf::typed_actor<caf::reacts_to<task_event>>;

/// Hears the causal messages of the topics it subscribed to.
using message_observer = caf::typed_actor<caf::reacts_to<message>>;

using node_actor = caf::typed_actor<
  // Enqueues a task: its id once another replica holds it (or no other
  // node is alive); refused: unknown_kind, oversize, invalid or busy.
  caf::replies_to<submit_atom, task>::with<std::string>,
  // Enqueues a workflow, given as POST /workflows's JSON body
  // (docs/workflows.md), all or nothing: its id once another replica
  // holds its tasks; refused: unknown_kind, invalid or busy.
  caf::replies_to<workflow_atom, std::string>::with<std::string>,
  // Adds a periodic schedule, given as POST /schedules's JSON body
  // (docs/workflows.md): its record's id once another replica holds it
  // (the same schedule, added before, answers its id); refused:
  // unknown_kind, invalid or busy.
  caf::replies_to<schedule_atom, std::string>::with<std::string>,
  // The task's end (done, failed, expired, canceled or removed) when it
  // comes, at once if it came already. With caf::infinite as the request's
  // timeout, a host actor gets the result whenever the task ends.
  caf::replies_to<await_atom, std::string>::with<task_event>,
  // The task's state now; none if this node does not know it.
  caf::replies_to<query_atom, std::string>::with<std::optional<task_event>>,
  // cancel / removeByID: false if the task is unknown or already ended.
  caf::replies_to<cancel_atom, std::string>::with<bool>,
  caf::replies_to<remove_atom, std::string>::with<bool>,
  // Every task state change this node learns, as task_event messages.
  caf::reacts_to<subscribe_atom, task_observer>,
  caf::reacts_to<unsubscribe_atom, task_observer>,
  // The causal messages of a topic ("" for all) this node delivers, in
  // causal order, as message messages.
  caf::reacts_to<subscribe_atom, std::string, message_observer>,
  caf::reacts_to<unsubscribe_atom, std::string, message_observer>,
  // Publishes (topic, data) to every node: the message as delivered here.
  caf::replies_to<publish_atom, std::string, std::string>::with<message>,
  // Submits an evaluation (dice test) of the project at a path (directory,
  // .tar.gz, .tar or .zip): its id once enqueued.
  caf::replies_to<evaluate_atom, std::string, evaluation_options>::with<std::string>>;

/// The category of the node's refusals.
constexpr caf::atom_value refusal_category = caf::atom("dice");

/// A refusal as the node answers it (found by CAF through ADL).
inline caf::error make_error(refusal code, std::string reason) {
  return caf::error{static_cast<std::uint8_t>(code), refusal_category,
                    caf::make_message(std::move(reason))};
}

/// The refusal `e` carries; none for other errors (a timeout, a stopped node).
inline std::optional<refusal> refusal_of(const caf::error& e) {
  if (e.category() != refusal_category)
    return std::nullopt;
  return static_cast<refusal>(e.code());
}

} // namespace dice::embed
