#pragma once
// The paper's communication manager: builds the queue's wire messages
// (enqueue, dequeue, removeByID, info, and the unknown-task and anti-entropy
// messages) and reads back what a received one means: which task it names,
// which operation it is, and which task state it asserts. The header fields
// (sender, incarnation, sequence) are the transport's to fill.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

/// Queue messages, by what a receiver does with them.
enum class queue_message {
  none,            // not a queue message (membership, elections)
  operation,       // ENQUEUE, DEQUEUE, REMOVE, INFO with an OpId: logged
  running,         // INFO RUNNING heartbeat, not an operation
  question,        // DO_YOU_KNOW_THIS_TASK
  answer,          // TAKE_MY_TASK, ALREADY_FINISHED_TASK
  sync_request,
  sync_reply,
  recovery,        // the coordinator recovered a dead member
  stable_point,    // the coordinator's compaction point
  ack,             // a replica holds some of our ENQUEUEs
};

queue_message classify(const wire::Message& m);

// -- builders -------------------------------------------------------------------

/// ID#INCARNATION: the origin of an incarnation's ops and task numbers
/// (a restarted node remembers nothing, so it numbers afresh).
std::string origin_of(const std::string& id, std::uint64_t incarnation);

/// The node id and incarnation of an origin_of() string; nullopt if it is
/// not one.
std::optional<std::pair<std::string, std::uint64_t>>
split_origin(const std::string& origin);

wire::OpId make_op_id(const std::string& origin, std::uint64_t seq);

wire::Message make_enqueue(const wire::TaskSpec& spec, const wire::OpId& op);
wire::Message make_dequeue(const std::string& task_id, std::uint32_t attempt,
                           const wire::Claim& claim, const wire::OpId& op);
wire::Message make_remove(const std::string& task_id, const wire::OpId& op,
                          millis time_ms = 0);

/// INFO: RUNNING heartbeat (no op), DONE/FAILED/CANCELED or READY (with op).
wire::Message make_info(const std::string& task_id,
                        const wire::TaskState& state, millis time_ms,
                        const wire::OpId* op);

/// DO_YOU_KNOW_THIS_TASK; `direct`: asked of one node alone (the witness),
/// which answers the asker at once instead of after a back-off.
wire::Message make_do_you_know(const std::string& task_id, bool direct = false);
wire::Message make_take_my_task(const wire::TaskSpec& spec,
                                const wire::TaskState& state);
wire::Message make_already_finished(const wire::TaskSpec& spec,
                                    const wire::TaskState& state);
/// The answer of a replica that forgot the task lately.
wire::Message make_forgotten_answer(const std::string& task_id);

// -- readers --------------------------------------------------------------------

/// The task a queue message names (empty if none).
std::string task_id_of(const wire::Message& m);

/// The operation id of an operation message.
std::optional<wire::OpId> op_of(const wire::Message& m);

/// The node a queue message shows to hold its task (it originated the
/// operation, or it runs the task: a RUNNING heartbeat's claim), whom a
/// replica that lacks the task asks first; empty if none.
std::string witness_of(const wire::Message& m);

/// The task state a message asserts, built the same way on every replica so
/// that the same message yields the same state everywhere (nullopt for
/// ENQUEUE, whose state is initial_state(), and for non-state messages).
std::optional<wire::TaskState> state_of(const wire::Message& m);

/// The REMOVED state of a removeByID at `time_ms`: no attempt, no claim,
/// so every replica's removal yields the identical top state (of two
/// removals, the earlier is kept); the time starts its retention.
wire::TaskState removed_state(millis time_ms = 0);

/// READY for `attempt`, claimable from `not_before` (wall ms; 0 at once):
/// identical whoever announces the re-queue.
wire::TaskState ready_state(std::uint32_t attempt, millis not_before = 0);

/// EXPIRED: identical on every replica that sees the spec's expiry pass.
wire::TaskState expired_state(std::uint32_t attempt, millis expires_ms);

} // namespace dice
