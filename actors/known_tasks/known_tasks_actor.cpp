// The known_tasks subsystem as an actor: drives its known_tasks_machine
// (known_tasks/known_tasks_machine.hpp) with the events routed to it, and
// takes the user's operations on tasks.
#include "known_tasks/known_tasks_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

known_tasks_actor spawn_known_tasks(caf::actor_system& sys,
                                    const subsystem_config& cfg) {
  using self_ptr =
    known_tasks_actor::stateful_pointer<subsystem_state<known_tasks_machine>>;
  return sys.spawn([cfg](self_ptr self) -> known_tasks_actor::behavior_type {
    start_subsystem(self, cfg,
                    std::make_unique<known_tasks_machine>(cfg.node_id, cfg.queue));
    // A user operation: what it emitted goes on, the answer comes back.
    auto user_op = [self](auto op) {
      ev::events out;
      bool ok = op(*self->state.machine, self->state.clock(), out);
      dispatch(self, out);
      return ok;
    };
    return {
      [self](queue_wiring& w) { wire_up(self, std::move(w)); },
      [self](const ev::batch& b) { handle_batch(self, b); },
      [self](const ev::merge_message& e) { handle(self, e); },
      [self](const ev::merge_task& e) { handle(self, e); },
      [self](const ev::snapshot_wanted& e) { handle(self, e); },
      [self](const ev::question_heard& e) { handle(self, e); },
      [self](const ev::answer_due& e) { handle(self, e); },
      [self](const ev::member_recovered& e) { handle(self, e); },
      [self](const ev::tasks_adopted& e) { handle(self, e); },
      [user_op](submit_atom, std::vector<wire::TaskSpec>& specs) {
        // One input: its ENQUEUEs leave together (one batch per hop).
        std::vector<std::string> refused;
        user_op([&](known_tasks_machine& m, millis now, ev::events& out) {
          for (auto& spec : specs) {
            auto id = spec.id();
            if (!m.submit(std::move(spec), now, out))
              refused.push_back(std::move(id));
          }
          return refused.empty();
        });
        return refused;
      },
      [user_op](remove_atom, const std::string& id) {
        return user_op([&](known_tasks_machine& m, millis now, ev::events& out) {
          return m.remove(id, now, out);
        });
      },
      [user_op](cancel_atom, const std::string& id) {
        return user_op([&](known_tasks_machine& m, millis now, ev::events& out) {
          return m.cancel(id, now, out);
        });
      },
      [self](tasks_atom, const task_query& q) {
        return self->state.machine->query(q);
      },
      [self](tasks_atom, stats_atom) { return self->state.machine->counts(); },
      [self](stats_atom) { return self->state.machine->counters(); },
    };
  });
}

} // namespace dice
