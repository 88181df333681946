#include "embed/event_of.hpp"

#include "http_api/task_json.hpp"

namespace dice::embed {

task_event task_event_of(const task_row& r) {
  task_event ev;
  ev.id = r.spec.id();
  ev.kind = r.spec.kind();
  ev.state = state_name(r.state);
  ev.node = r.state.claim().node_id();
  ev.attempts = r.state.attempt();
  if (r.state.phase() == wire::DONE)
    ev.result = r.state.result();
  ev.reason = r.state.reason();
  ev.ready_at_ms = r.state.ready_time_ms();
  if (ev.ready_at_ms == 0 && r.state.attempt() <= 1)
    ev.ready_at_ms = r.spec.enqueue_time_ms();
  ev.started_at_ms = r.state.started_time_ms();
  ev.finished_at_ms = r.state.finished_time_ms();
  return ev;
}

message message_of(const causal_delivery& d) {
  return message{d.topic, d.data, d.origin, d.seq, d.time_ms};
}

} // namespace dice::embed
