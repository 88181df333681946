// The known_tasks subsystem as an actor: drives its known_tasks_machine
// (known_tasks/known_tasks_machine.hpp) with the events routed to it,
// takes the user's operations on tasks, and keeps the replica's journal.
#include <spdlog/spdlog.h>

#include "journal/replica_journal.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "queue/subsystem_actor.hpp"

namespace dice {

namespace {

// The journal's figures beside the machine's own.
queue_counters with_journal(queue_counters c, const replica_journal* j) {
  if (j == nullptr)
    return c;
  auto jc = j->counters();
  c.journal_records_loaded = jc.records_loaded;
  c.journal_bad_tails = jc.bad_tails;
  c.journal_records_written = jc.records_written;
  c.journal_bytes_written = jc.bytes_written;
  c.journal_syncs = jc.syncs;
  c.journal_compactions = jc.compactions;
  c.journal_write_errors = jc.write_errors;
  return c;
}

} // namespace

known_tasks_actor spawn_known_tasks(caf::actor_system& sys,
                                    const subsystem_config& cfg,
                                    std::shared_ptr<replica_journal> journal) {
  using self_ptr =
    known_tasks_actor::stateful_pointer<subsystem_state<known_tasks_machine>>;
  return sys.spawn([cfg, journal](self_ptr self) -> known_tasks_actor::behavior_type {
    start_subsystem(self, cfg,
                    std::make_unique<known_tasks_machine>(make_known_tasks_machine(cfg)));
    if (auto board = cfg.board)
      self->state.post_stats = [self, board, journal] {
        const auto& m = *self->state.machine;
        board->post(stats_board::poster::known_tasks,
                    with_journal(m.counters(), journal.get()));
        board->post(m.counts());
      };
    // A user operation: what it emitted goes on, the answer comes back.
    auto user_op = [self](auto op) {
      ev::events out;
      bool ok = op(*self->state.machine, self->state.clock(), out);
      dispatch(self, out);
      return ok;
    };
    return {
      [self](queue_wiring& w) { wire_up(self, std::move(w)); },
      [self, journal](restore_atom) {
        if (!journal)
          return;
        auto& m = *self->state.machine;
        auto records = journal->load();
        ev::events out;
        m.restore(records, out);
        // The file becomes one record per task (its torn tail, if any,
        // gone) before the first new append.
        journal->compact(m.replica());
        m.keep_in(journal.get());
        auto jc = journal->counters();
        if (!records.empty() || jc.bad_tails > 0)
          spdlog::info("journal: {} tasks restored from {} records{}",
                     m.replica().size(), records.size(),
                     jc.bad_tails > 0 ? fmt::format(", a torn or corrupt tail "
                                                    "of {} bytes cut",
                                                    jc.bytes_cut)
                                      : std::string{});
        // Every input passes here: only one that appended can have made
        // the file worth rewriting.
        self->state.before_dispatch = [self, journal] {
          if (journal->flush() && journal->wants_compaction())
            journal->compact(self->state.machine->replica());
        };
        dispatch(self, out);
      },
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
    };
  });
}

} // namespace dice
