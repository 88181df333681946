// The known_tasks subsystem as an actor: drives its known_tasks_machine
// (known_tasks/known_tasks_machine.hpp) with the events routed to it,
// takes the user's operations on tasks, and keeps the replica's journal.
#include <spdlog/spdlog.h>

#include "journal/replica_journal.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "known_tasks/memory_release.hpp"
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

// Loads the journal's replica into the machine, and from then on every
// input's changes reach the journal before anyone hears of them.
template <class Self>
void restore(Self* self, const std::shared_ptr<replica_journal>& journal) {
  if (!journal)
    return;
  auto& m = *self->state.machine;
  auto records = journal->load();
  ev::events out;
  trace_outside(self, out, "restore");
  m.restore(records, self->state.clock(), out);
  // The file becomes one record per task (its torn tail, if any, gone)
  // before the first new append.
  journal->compact(m.replica(), m.forgotten());
  m.keep_in(journal.get());
  auto jc = journal->counters();
  if (!records.empty() || jc.bad_tails > 0)
    spdlog::info("journal: {} tasks restored from {} records{}",
                 m.replica().size(), records.size(),
                 jc.bad_tails > 0 ? fmt::format(", a torn or corrupt tail "
                                                "of {} bytes cut",
                                                jc.bytes_cut)
                                  : std::string{});
  dispatch(self, out);
}

// Runs after every input: the journal gets what it changed (only an input
// that appended can have made the file worth rewriting), and the memory
// of what it forgot goes back to the system.
template <class Self>
void after_input(Self* self, replica_journal* journal,
                 memory_release& release) {
  const auto& m = *self->state.machine;
  // Nothing is buffered before restore() hands the machine the journal.
  if (journal != nullptr && journal->flush()
      && journal->wants_compaction(m.replica().size()))
    journal->compact(m.replica(), m.forgotten());
  if (release.due(self->state.clock(), m.counters().tasks_forgotten,
                  m.recently_forgotten()))
    release_freed_memory();
}

} // namespace

known_tasks_actor spawn_known_tasks(caf::actor_system& sys,
                                    const subsystem_config& cfg,
                                    std::shared_ptr<replica_journal> journal) {
  return spawn_subsystem<known_tasks_actor, known_tasks_machine>(
    sys, [cfg, journal](auto self) {
      start_subsystem(self, cfg, std::make_unique<known_tasks_machine>(
                                   make_known_tasks_machine(cfg)));
      self->state.before_dispatch =
        [self, journal,
         release = memory_release(memory_release_ms)](
          ev::events&) mutable { after_input(self, journal.get(), release); };
      if (auto board = cfg.board)
        self->state.post_stats = [self, board, journal] {
          const auto& m = *self->state.machine;
          board->post(stats_board::poster::known_tasks,
                      with_journal(m.counters(), journal.get()));
          board->post(m.counts());
        };
      return std::make_tuple(
        [self, journal](restore_atom) { restore(self, journal); },
        [self](submit_atom, std::vector<wire::TaskSpec>& specs) {
          // One input: its ENQUEUEs leave together (one batch per hop).
          std::vector<std::string> refused;
          handle_input(self, [&](known_tasks_machine& m, millis now,
                                 ev::events& out) {
            for (auto& spec : specs) {
              auto id = spec.id();
              if (!m.submit(std::move(spec), now, out))
                refused.push_back(std::move(id));
            }
          }, "submit");
          return refused;
        },
        [self](remove_atom, const std::string& id) {
          return handle_input(self, [&](known_tasks_machine& m, millis now,
                                        ev::events& out) {
            return m.remove(id, now, out);
          }, "remove");
        },
        [self](cancel_atom, const std::string& id) {
          return handle_input(self, [&](known_tasks_machine& m, millis now,
                                        ev::events& out) {
            return m.cancel(id, now, out);
          }, "cancel");
        },
        [self](tasks_atom, const task_query& q) {
          return self->state.machine->query(q);
        });
    });
}

} // namespace dice
