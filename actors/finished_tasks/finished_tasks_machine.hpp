#pragma once
// The finished_tasks subsystem: the outcome of every task that ended on
// this replica (DONE with its result, FAILED or CANCELED with the reason,
// REMOVED), reported once per change.
#include "finished_tasks/finished_tasks.hpp"
#include "queue_node/queue_events.hpp"

namespace dice {

class finished_tasks_machine {
public:
  void on(const ev::task_changed& e, millis now, ev::events& out);

  const finished_tasks& finished() const { return finished_; }

private:
  finished_tasks finished_;
};

} // namespace dice
