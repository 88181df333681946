#pragma once
// The messages the queue's subsystems send one another. Each subsystem is a
// state machine that reads only its own state: what it needs of another's,
// it learns from these events. Each subsystem is an actor (queue/) and
// they travel as actor messages; a machine's unit tests hand them to it
// directly. No CAF here.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/time.hpp"
#include "dice.pb.h"
#include "vocabulary/runner_capabilities.hpp"
#include "vocabulary/version_vector.hpp"

namespace dice::ev {

// -- from known_tasks -----------------------------------------------------------

/// The merged state of a task changed (to ready_queue, ranking,
/// running_tasks and task listeners).
struct task_changed {
  std::string task_id;
  std::shared_ptr<const wire::TaskSpec> spec; // null while unknown
  wire::TaskState state;
};
/// A peer's claim was merged, or our own one that changed nothing; `state`
/// is the merged state (to ranking, which tells a losing claimer about the
/// better claim, and learns where its own claim stands, and to
/// running_tasks, which stops an execution whose claim lost).
struct claim_heard {
  wire::Dequeue claim;
  wire::TaskState state;
};
/// A RUNNING heartbeat for (task, attempt, node) (to running_tasks).
struct running_heard {
  std::string task_id;
  std::uint32_t attempt = 0;
  std::string node;
};
/// A message named a task this replica has no spec for (to the resolver).
struct unknown_seen {
  std::string task_id;
  std::string witness; // whose message named it: asked first (may be empty)
};
/// The spec of a task is known now (to the resolver).
struct spec_learned {
  std::string task_id;
};
/// Someone asked about a task this replica knows: answer after a back-off
/// (to the resolver).
struct known_question {
  std::string task_id;
};
/// The replica's digest after a change (to communication, for heartbeats).
struct replica_digest {
  std::uint64_t digest = 0;
};

// -- from communication ---------------------------------------------------------

/// Merge what a message asserts (to known_tasks): an operation (this
/// node's own or a peer's) or a RUNNING heartbeat. `from_peer`: a peer sent
/// it itself, so it tells what that peer believes now.
struct merge_message {
  wire::Message message;
  bool from_peer = false;
};
/// Merge a task known from an unknown-task answer or a snapshot chunk.
struct merge_task {
  wire::TaskSpec spec; // only the id when spec_unknown
  bool spec_unknown = false;
  wire::TaskState state;
  /// The answerer forgot the task (spec_unknown, no state): drop what is
  /// held of it by id alone.
  bool forgotten = false;
};
/// The journal gave the replica unended tasks: claim nothing before
/// `hold_until` (known_tasks to ready_queue).
struct replica_restored {
  millis hold_until = 0;
};
/// Tasks this replica forgot (known_tasks to communication): their ops
/// leave the op log, so a peer that lacks them gets a snapshot, which says
/// they were forgotten, instead of ops that would make them anew.
struct tasks_forgotten {
  std::vector<std::string> task_ids;
};
/// What a peer forgot, from the start of its snapshot (to known_tasks).
struct merge_forgotten {
  std::vector<wire::ForgottenRange> ranges;
};
/// A peer wants a snapshot chunk of the tasks after `after`; `versions` is
/// what this replica has seen, as the reply must say (to known_tasks).
struct snapshot_wanted {
  std::string peer;
  std::string after;
  version_vector versions;
};
/// DO_YOU_KNOW_THIS_TASK heard (to known_tasks, which asks the resolver to
/// answer if it knows the task).
struct question_heard {
  std::string task_id;
  std::string asker;
  bool direct = false; // asked of this node alone: answer at once
};
/// An unknown-task answer heard: stay silent (to the resolver).
struct answer_seen {
  std::string task_id;
};
/// The claims a node holds at once: its slots, and its prefetch beyond.
struct seats {
  std::uint32_t slots = 0; // 0: not said (taken as 1)
  std::uint32_t prefetch = 0;
  bool draining = false;   // no seat at all: it claims nothing new
  runner_capabilities runner; // what it runs (none advertised: anything)
  bool operator==(const seats& o) const {
    return slots == o.slots && prefetch == o.prefetch && draining == o.draining
           && runner == o.runner;
  }
};
/// Live nodes, this one included (to ready_queue and ranking), and the
/// seats each peer said it has.
struct live_nodes {
  std::size_t count = 1;
  std::map<std::string, seats> peer_seats;
};
/// Recover a dead member's executions (to running_tasks).
struct recover_member {
  std::string node;
  bool announce = false; // an election runs: announce the recovery
};
/// Another coordinator adopted these tasks (to known_tasks).
struct tasks_adopted {
  std::string by;
  std::vector<std::string> task_ids;
};

// -- to communication -------------------------------------------------------------

/// Number, log, broadcast and apply one of this node's operations. `ack`:
/// a submit, answered once another replica holds it.
struct originate {
  wire::Message op;
  bool ack = false;
  /// As broadcast::hold_ms.
  millis hold_ms = 0;
};

// -- from the resolver --------------------------------------------------------------

/// Answer a question about a task now (to known_tasks, which holds it).
struct answer_due {
  std::string task_id;
};

// -- claims and executions -----------------------------------------------------------

/// How many of this node's slots are free, from now on (ranking to
/// ready_queue, whenever it changes): ready_queue offers a task for each,
/// as soon as it has one, counting them down. `free_since`: when a slot
/// became free, which the claim stagger counts from.
struct free_slots {
  std::size_t count = 0; // free seats, prefetch included
  std::size_t slots = 0; // of which free slots, that would run at once
  millis free_since = 0;
  std::vector<std::string> claimed; // claimed or run already: skip
};
/// A ready task this node may claim now (ready_queue to ranking).
/// `matched`: the common matching gave it to this node, so no other node
/// is expected to claim it and its claim waits only the short
/// matched_claim_window_ms; otherwise it is a free slot's late, staggered
/// claim, which waits claim_window_ms.
struct task_offer {
  std::string task_id;
  std::uint32_t attempt = 0;
  std::shared_ptr<const wire::TaskSpec> spec;
  millis ready_ms = 0; // when the attempt became ready
  bool matched = false;
};
/// A claim won its window (or has none): execute it (ranking to
/// running_tasks).
struct start_execution {
  std::string task_id;
  std::uint32_t attempt = 0;
  wire::Claim claim;
  std::shared_ptr<const wire::TaskSpec> spec;
  millis ready_ms = 0;
  // The merged state that named the claim; for a claim without a window,
  // the state its DEQUEUE will merge to.
  wire::TaskState state;
};
/// An execution of this node ended or was stopped (running_tasks to
/// ranking: its seat is free).
struct execution_over {
  std::string task_id;
  /// How long it ran, its slot's start to its end heard here (-1: stopped
  /// or never started; no measure of this node's executions).
  millis ran_ms = -1;
};
/// The claims this node holds beyond its slots changed (--prefetch auto;
/// ranking to communication, whose heartbeats advertise it to the peers'
/// claim matching).
struct prefetch_now {
  std::uint32_t count = 0;
};
/// The executor's report (to running_tasks).
/// The operator drains this node (on: it claims nothing new, finishes what
/// it holds) or undrains it (to ranking, and communication, which tells
/// the peers' claim matching).
struct drain {
  bool on = false;
};
/// What this node runs changed: a worker outside it began or stopped
/// serving a kind (to ready_queue, which claims by it, and communication,
/// whose heartbeats advertise it).
struct runner_changed {
  runner_capabilities runner;
};
/// A slot took an execution of this node (the executor to running_tasks):
/// until then the claim waited, claimed ahead of a free slot.
struct execution_begun {
  std::string task_id;
  std::uint32_t attempt = 0;
  millis started = 0;
};
struct execution_report {
  std::string task_id;
  std::uint32_t attempt = 0;
  bool ok = false;
  std::string result;
  millis started = 0;
  /// A failure no retry can fix (a bad payload, a program not allowed):
  /// the task ends FAILED at once instead of spending its attempts.
  bool final = false;
  /// Not started: its expiry passed while it waited for a slot (a
  /// prefetched claim). The task ends EXPIRED.
  bool expired = false;
};
/// running_tasks re-queued a dead member's executions; the coordinator
/// adopts its unfinished tasks and announces both (to known_tasks).
struct member_recovered {
  std::string node;
  std::vector<std::string> requeued;
  bool announce = false;
};

// -- to the bridge ------------------------------------------------------------------

struct broadcast {
  wire::Message message;
  /// It may wait up to this long for another broadcast to share a datagram
  /// with (0: it leaves at once).
  millis hold_ms = 0;
};
/// A message for one peer, by id (to communication, which sends it on).
struct send_to {
  std::string peer;
  wire::Message message;
};
/// A message for one peer, by node id (communication to the bridge, which
/// knows where peers listen).
struct unicast {
  std::string peer;
  wire::Message message;
};

// -- to the executor ----------------------------------------------------------------

struct run_order {
  std::string task_id;
  std::uint32_t attempt = 0;
  std::shared_ptr<const wire::TaskSpec> spec;
};
struct cancel_order {
  std::string task_id;
  std::uint32_t attempt = 0;
};

// -- to the user (the node facade) ----------------------------------------------------

/// A submitted task is now held by another replica (or none is alive).
struct acknowledged {
  std::string task_id;
};

/// Every event, once. The variant below, the routes (which subsystems take
/// an event: those whose machine has an `on` for it; queue_routes.hpp) and
/// the actors' message types (queue/queue_interfaces.hpp) follow from this
/// list and from the machines' `on` overloads.
#define DICE_QUEUE_EVENTS(X)                                                   \
  X(task_changed) X(claim_heard) X(running_heard) X(unknown_seen)              \
  X(spec_learned) X(known_question) X(replica_digest)            \
  X(merge_message) X(merge_task) X(merge_forgotten) X(snapshot_wanted)         \
  X(replica_restored) X(tasks_forgotten)                                       \
  X(question_heard)                                                            \
  X(answer_seen) X(live_nodes) X(recover_member) X(tasks_adopted)              \
  X(originate) X(answer_due) X(free_slots) X(task_offer) X(start_execution)    \
  X(execution_over) X(prefetch_now) X(drain) X(runner_changed) X(execution_begun) X(execution_report) X(member_recovered) X(broadcast)       \
  X(send_to) X(unicast) X(run_order) X(cancel_order) X(acknowledged)

namespace detail {
template <class First, class... Es>
using variant_of_rest = std::variant<Es...>;
} // namespace detail

#define DICE_COMMA_EVENT(name) , name
using event = detail::variant_of_rest<void DICE_QUEUE_EVENTS(DICE_COMMA_EVENT)>;
#undef DICE_COMMA_EVENT

/// What a subsystem emits while handling one input.
using events = std::vector<event>;

/// Several events for one subsystem, emitted by one input, in their order:
/// one actor message instead of one each (a burst of 128 ENQUEUEs then
/// crosses each hop at once and wakes each actor once).
struct batch {
  events items;
};

} // namespace dice::ev
