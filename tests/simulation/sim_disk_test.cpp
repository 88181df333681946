// The journal on a simulated disk (simulation/sim_disk.hpp): a machine
// crash keeps what was synced, so --sync always loses nothing and
// --sync none loses what the disk had not written, a torn record cut.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "journal/replica_journal.hpp"
#include "simulation/sim_disk.hpp"

using namespace dice;

namespace {

known_task done_task(const std::string& id) {
  known_task t;
  t.spec.set_id(id);
  t.spec.set_kind("noop");
  t.spec.set_payload(std::string(40, 'p'));
  t.has_spec = true;
  t.state.set_phase(wire::DONE);
  t.state.set_attempt(1);
  return t;
}

/// Journals tasks t1..t`n` under `sync`, one flush each (one input each,
/// as known_tasks flushes), on `disk`.
void journal_tasks(sim_disk& disk, journal_sync sync, int n) {
  replica_journal j({"replica.journal", sync}, disk.open("replica.journal"));
  j.load();
  for (int i = 1; i <= n; ++i) {
    j.record("t" + std::to_string(i), done_task("t" + std::to_string(i)));
    j.flush();
  }
}

std::size_t tasks_after_crash(sim_disk& disk, journal_counters& c) {
  replica_journal j({"replica.journal", journal_sync::always},
                    disk.open("replica.journal"));
  auto records = j.load();
  c = j.counters();
  return records.size();
}

} // namespace

TEST_CASE("on a simulated disk, a machine crash loses nothing the journal "
          "synced at every flush (--sync always)",
          "[journal][sim]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    sim_disk disk(seed);
    journal_tasks(disk, journal_sync::always, 10);
    disk.crash();
    journal_counters c;
    INFO("seed " << seed);
    CHECK(tasks_after_crash(disk, c) == 10);
    CHECK(c.bad_tails == 0);
    CHECK(disk.bytes_lost() == 0);
  }
}

TEST_CASE("on a simulated disk, a machine crash under --sync none loses "
          "what was never synced, and a record torn in half is cut at load",
          "[journal][sim]") {
  std::size_t lost_some = 0, torn = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    sim_disk disk(seed);
    journal_tasks(disk, journal_sync::none, 10);
    disk.crash();
    journal_counters c;
    INFO("seed " << seed);
    auto kept = tasks_after_crash(disk, c);
    CHECK(kept <= 10);
    lost_some += kept < 10;
    torn += c.bad_tails;
    // The load cut the torn tail; another crash loses nothing more.
    disk.crash();
    journal_counters again;
    CHECK(tasks_after_crash(disk, again) == kept);
    CHECK(again.bad_tails == 0);
  }
  // The disk keeps a random part of the unsynced bytes: mostly not all of
  // them, often a record in half.
  CHECK(lost_some > 40);
  CHECK(torn > 30);
}

TEST_CASE("on a simulated disk, a compaction is durable at once whatever "
          "the sync mode",
          "[journal][sim]") {
  sim_disk disk(7);
  {
    replica_journal j({"replica.journal", journal_sync::none},
                      disk.open("replica.journal"));
    j.load();
    known_tasks replica;
    for (int i = 1; i <= 5; ++i) {
      auto t = done_task("t" + std::to_string(i));
      replica.learn_spec(t.spec);
      replica.merge_state(t.spec.id(), t.state);
    }
    j.compact(replica, forgotten_set{});
  }
  disk.crash();
  journal_counters c;
  CHECK(tasks_after_crash(disk, c) == 5);
}
