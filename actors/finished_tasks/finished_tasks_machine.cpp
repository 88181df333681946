#include "finished_tasks/finished_tasks_machine.hpp"

#include "known_tasks/task_state.hpp"

namespace dice {

void finished_tasks_machine::on(const ev::task_changed& e, millis,
                                ev::events& out) {
  if (is_terminal(e.state.phase()) && finished_.record(e.task_id, e.state))
    out.push_back(ev::task_finished{e.task_id});
}

} // namespace dice
