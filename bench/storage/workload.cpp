#include "workload.hpp"

#include <algorithm>

namespace bench {

using dice::wire::TaskPhase;

std::string task_id(std::uint64_t n) {
  return "node-a-1764170000-" + std::to_string(n);
}

dice::wire::TaskSpec task_spec(std::uint64_t n) {
  dice::wire::TaskSpec s;
  s.set_id(task_id(n));
  s.set_kind("shell");
  s.set_payload("{\"argv\":[\"make\",\"-C\",\"proj\",\"test-shard-" + std::to_string(n % 97)
                + "\"]}");
  s.set_priority(static_cast<int>(n % 3));
  s.set_enqueuer("node-a");
  s.set_enqueue_time_ms(1764170000000 + static_cast<std::int64_t>(n));
  s.set_time_limit_ms(600000);
  s.mutable_created()->set_origin(origin);
  s.mutable_created()->set_seq(n + 1);
  return s;
}

dice::wire::TaskState task_state(std::uint64_t n, TaskPhase phase) {
  dice::wire::TaskState st;
  st.set_attempt(1);
  st.set_phase(phase);
  if (phase == dice::wire::READY)
    return st;
  auto t = 1764170000000 + static_cast<std::int64_t>(n);
  auto* c = st.mutable_claim();
  c->set_node_id(n % 2 ? "node-b" : "node-c");
  c->set_battery(80);
  c->set_dequeue_time_ms(t + 3);
  c->set_device_class(1);
  if (phase == dice::wire::DONE) {
    st.set_result("exit 0: 42 passed\n");
    st.set_finished_time_ms(t + 250);
    st.set_ready_time_ms(t);
    st.set_started_time_ms(t + 4);
  }
  return st;
}

dice::wire::ForgottenRange task_range(std::uint64_t n) {
  dice::wire::OpId created;
  created.set_origin(origin);
  created.set_seq(n + 1);
  return dice::range_of(created);
}

op_stream::op_stream(std::uint64_t tasks, std::uint64_t lag,
                     std::uint64_t forget_lag)
  : tasks_(tasks), lag_(lag), forget_lag_(forget_lag) {}

bool op_stream::fill(op& out, int slot) {
  // Slot 0 enqueues step_, 1 claims step_ - lag, 2 ends step_ - 2 lag,
  // 3 forgets step_ - forget_lag; steps past the last task drain the rest.
  static const TaskPhase phases[] = {dice::wire::READY, dice::wire::RUNNING,
                                     dice::wire::DONE};
  std::uint64_t back = slot == 3 ? forget_lag_ : slot * lag_;
  if (slot == 3 && forget_lag_ == 0)
    return false;
  if (step_ < back || step_ - back >= tasks_)
    return false;
  out.kind = slot == 3 ? op::forget : op::record;
  out.task = step_ - back;
  out.phase = slot == 3 ? dice::wire::DONE : phases[slot];
  return true;
}

bool op_stream::next(op& out) {
  std::uint64_t last = tasks_ + std::max(2 * lag_, forget_lag_);
  while (step_ < last) {
    while (slot_ < 4)
      if (fill(out, slot_++)) {
        ++emitted_;
        return true;
      }
    slot_ = 0;
    ++step_;
  }
  return false;
}

} // namespace bench
