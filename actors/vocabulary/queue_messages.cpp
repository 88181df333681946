#include "vocabulary/queue_messages.hpp"

#include <cstdlib>

namespace dice {

queue_message classify(const wire::Message& m) {
  using M = wire::Message;
  switch (m.body_case()) {
    case M::kEnqueue:
    case M::kDequeue:
    case M::kRemove:
      return queue_message::operation;
    case M::kInfo:
      return m.info().has_op() ? queue_message::operation
                               : queue_message::running;
    case M::kDoYouKnowThisTask:
      return queue_message::question;
    case M::kTakeMyTask:
    case M::kAlreadyFinishedTask:
      return queue_message::answer;
    case M::kSyncRequest:
      return queue_message::sync_request;
    case M::kSyncReply:
      return queue_message::sync_reply;
    case M::kRecovery:
      return queue_message::recovery;
    case M::kStablePoint:
      return queue_message::stable_point;
    case M::kAck:
      return queue_message::ack;
    default:
      return queue_message::none;
  }
}

std::string origin_of(const std::string& id, std::uint64_t incarnation) {
  return id + "#" + std::to_string(incarnation);
}

std::optional<std::pair<std::string, std::uint64_t>>
split_origin(const std::string& origin) {
  auto hash = origin.rfind('#');
  if (hash == std::string::npos || hash + 1 >= origin.size())
    return std::nullopt;
  char* end = nullptr;
  auto inc = std::strtoull(origin.c_str() + hash + 1, &end, 10);
  if (end == nullptr || *end != '\0')
    return std::nullopt;
  return std::make_pair(origin.substr(0, hash), inc);
}

wire::OpId make_op_id(const std::string& origin, std::uint64_t seq) {
  wire::OpId op;
  op.set_origin(origin);
  op.set_seq(seq);
  return op;
}

wire::Message make_enqueue(const wire::TaskSpec& spec, const wire::OpId& op) {
  wire::Message m;
  auto* e = m.mutable_enqueue();
  *e->mutable_spec() = spec;
  *e->mutable_op() = op;
  return m;
}

wire::Message make_dequeue(const std::string& task_id, std::uint32_t attempt,
                           const wire::Claim& claim, const wire::OpId& op) {
  wire::Message m;
  auto* d = m.mutable_dequeue();
  d->set_task_id(task_id);
  d->set_attempt(attempt);
  *d->mutable_claim() = claim;
  *d->mutable_op() = op;
  return m;
}

wire::Message make_remove(const std::string& task_id, const wire::OpId& op,
                          millis time_ms) {
  wire::Message m;
  auto* r = m.mutable_remove();
  r->set_task_id(task_id);
  *r->mutable_op() = op;
  r->set_time_ms(time_ms);
  return m;
}

wire::Message make_info(const std::string& task_id,
                        const wire::TaskState& state, millis time_ms,
                        const wire::OpId* op) {
  wire::Message m;
  auto* i = m.mutable_info();
  i->set_task_id(task_id);
  i->set_phase(state.phase());
  i->set_attempt(state.attempt());
  if (state.has_claim())
    *i->mutable_claim() = state.claim();
  i->set_result(state.result());
  i->set_reason(state.reason());
  i->set_time_ms(state.phase() == wire::RUNNING ? time_ms
                                                : state.finished_time_ms());
  // RUNNING: the start mark, if the execution began (heartbeats carry
  // none; merging never takes a mark away).
  i->set_started_time_ms(state.started_time_ms());
  if (state.phase() != wire::RUNNING)
    i->set_ready_time_ms(state.ready_time_ms());
  if (state.phase() == wire::READY)
    i->set_not_before_ms(state.not_before_ms());
  if (op != nullptr)
    *i->mutable_op() = *op;
  return m;
}

wire::Message make_do_you_know(const std::string& task_id, bool direct) {
  wire::Message m;
  m.mutable_do_you_know_this_task()->set_task_id(task_id);
  m.mutable_do_you_know_this_task()->set_direct(direct);
  return m;
}

wire::Message make_take_my_task(const wire::TaskSpec& spec,
                                const wire::TaskState& state) {
  wire::Message m;
  auto* t = m.mutable_take_my_task();
  *t->mutable_spec() = spec;
  *t->mutable_state() = state;
  return m;
}

wire::Message make_already_finished(const wire::TaskSpec& spec,
                                    const wire::TaskState& state) {
  wire::Message m;
  auto* a = m.mutable_already_finished_task();
  a->set_task_id(spec.id());
  *a->mutable_state() = state;
  *a->mutable_spec() = spec;
  return m;
}

wire::Message make_forgotten_answer(const std::string& task_id) {
  wire::Message m;
  auto* a = m.mutable_already_finished_task();
  a->set_task_id(task_id);
  a->mutable_spec()->set_id(task_id);
  a->set_forgotten(true);
  return m;
}

std::string task_id_of(const wire::Message& m) {
  using M = wire::Message;
  switch (m.body_case()) {
    case M::kEnqueue:
      return m.enqueue().spec().id();
    case M::kDequeue:
      return m.dequeue().task_id();
    case M::kRemove:
      return m.remove().task_id();
    case M::kInfo:
      return m.info().task_id();
    case M::kDoYouKnowThisTask:
      return m.do_you_know_this_task().task_id();
    case M::kTakeMyTask:
      return m.take_my_task().spec().id();
    case M::kAlreadyFinishedTask:
      return m.already_finished_task().task_id();
    default:
      return {};
  }
}

std::optional<wire::OpId> op_of(const wire::Message& m) {
  using M = wire::Message;
  const wire::OpId* op = nullptr;
  switch (m.body_case()) {
    case M::kEnqueue:
      op = m.enqueue().has_op() ? &m.enqueue().op() : nullptr;
      break;
    case M::kDequeue:
      op = m.dequeue().has_op() ? &m.dequeue().op() : nullptr;
      break;
    case M::kRemove:
      op = m.remove().has_op() ? &m.remove().op() : nullptr;
      break;
    case M::kInfo:
      op = m.info().has_op() ? &m.info().op() : nullptr;
      break;
    default:
      break;
  }
  if (op == nullptr || op->origin().empty() || op->seq() == 0)
    return std::nullopt;
  return *op;
}

std::string witness_of(const wire::Message& m) {
  if (auto op = op_of(m))
    if (auto parts = split_origin(op->origin()))
      return parts->first;
  if (m.has_info() && m.info().phase() == wire::RUNNING)
    return m.info().claim().node_id();
  return {};
}

wire::TaskState removed_state(millis time_ms) {
  wire::TaskState s;
  s.set_phase(wire::REMOVED);
  s.set_finished_time_ms(time_ms);
  return s;
}

wire::TaskState ready_state(std::uint32_t attempt, millis not_before) {
  wire::TaskState s;
  s.set_phase(wire::READY);
  s.set_attempt(attempt);
  s.set_not_before_ms(not_before);
  return s;
}

wire::TaskState expired_state(std::uint32_t attempt, millis expires_ms) {
  wire::TaskState s;
  s.set_phase(wire::EXPIRED);
  s.set_attempt(attempt);
  s.set_finished_time_ms(expires_ms);
  s.set_reason("not started before it expired");
  return s;
}

std::optional<wire::TaskState> state_of(const wire::Message& m) {
  using M = wire::Message;
  switch (m.body_case()) {
    case M::kDequeue: {
      wire::TaskState s;
      s.set_phase(wire::RUNNING);
      s.set_attempt(m.dequeue().attempt());
      *s.mutable_claim() = m.dequeue().claim();
      return s;
    }
    case M::kRemove:
      return removed_state(m.remove().time_ms());
    case M::kInfo: {
      const auto& i = m.info();
      if (i.phase() == wire::READY)
        return ready_state(i.attempt(), i.not_before_ms());
      wire::TaskState s;
      s.set_phase(i.phase());
      s.set_attempt(i.attempt());
      if (i.has_claim())
        *s.mutable_claim() = i.claim();
      // A heartbeat asserts what the DEQUEUE did, a start mark that the
      // execution began besides.
      s.set_started_time_ms(i.started_time_ms());
      if (i.phase() != wire::RUNNING) {
        s.set_result(i.result());
        s.set_reason(i.reason());
        s.set_finished_time_ms(i.time_ms());
        s.set_ready_time_ms(i.ready_time_ms());
      }
      return s;
    }
    case M::kTakeMyTask:
      return m.take_my_task().state();
    case M::kAlreadyFinishedTask:
      return m.already_finished_task().state();
    default:
      return std::nullopt;
  }
}

} // namespace dice
