#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/resource.h>

#include "common/emitted_events.hpp"
#include "common/data_dir.hpp"
#include "journal/replica_journal.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "vocabulary/queue_messages.hpp"

using namespace dice;

namespace {

/// A fresh directory under the system's temp dir, removed afterwards.
struct scratch {
  std::filesystem::path path;
  scratch() {
    std::string tmpl = (std::filesystem::temp_directory_path()
                        / "dice-journal-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

wire::TaskSpec spec_of(const std::string& id) {
  wire::TaskSpec s;
  s.set_id(id);
  s.set_kind("noop");
  s.set_payload("payload of " + id);
  s.set_enqueuer("a");
  return s;
}

wire::TaskState state_of(wire::TaskPhase phase, std::uint32_t attempt,
                         const std::string& result = "") {
  wire::TaskState s;
  s.set_phase(phase);
  s.set_attempt(attempt);
  s.set_result(result);
  return s;
}

/// A replica that went through some changes, journaled as known_tasks
/// journals them (one record per change).
known_tasks_machine journaled_replica(replica_journal& j) {
  known_tasks_machine k("a", "a#1", queue_config{});
  k.keep_in(&j);
  ev::events out;
  for (auto id : {"t1", "t2", "t3"})
    k.on(ev::merge_task{spec_of(id), false, state_of(wire::READY, 1)}, 0, out);
  k.on(ev::merge_task{spec_of("t1"), false, state_of(wire::DONE, 1, "42")}, 0,
       out);
  k.on(ev::merge_task{spec_of("t2"), false, state_of(wire::READY, 2)}, 0, out);
  j.flush();
  return k;
}

known_tasks_machine restored(const std::vector<wire::TakeMyTask>& records,
                             ev::events& out) {
  known_tasks_machine k("a", "a#1", queue_config{});
  k.restore(records, 0, out);
  return k;
}

} // namespace

TEST_CASE("the journal gives a restarted node the replica it had: every "
          "spec, every merged state, results included",
          "[journal]") {
  scratch dir;
  journal_options opts{dir.file("replica.journal"), journal_sync::none};
  known_tasks before;
  {
    replica_journal j(opts);
    REQUIRE(j.load().empty());
    auto k = journaled_replica(j);
    before = k.replica();
    CHECK(j.counters().records_written == 5);
  }
  replica_journal again(opts);
  auto records = again.load();
  CHECK(records.size() == 5);
  ev::events out;
  auto k = restored(records, out);
  CHECK(k.replica().same_as(before));
  CHECK(k.replica().find("t1")->state.result() == "42");
  // Every task is announced to the other subsystems, the digest once.
  CHECK(test::emitted<ev::task_changed>(out).size() == 3);
  CHECK(test::emitted<ev::replica_digest>(out).size() == 1);
  CHECK(again.counters().bad_tails == 0);
}

TEST_CASE("a journal whose last append was torn by a crash loads every "
          "whole record, counts the tail and cuts it from the file",
          "[journal]") {
  scratch dir;
  journal_options opts{dir.file("replica.journal"), journal_sync::none};
  {
    replica_journal j(opts);
    j.load();
    journaled_replica(j);
  }
  auto whole = std::filesystem::file_size(opts.path);
  {
    std::ofstream tail(opts.path, std::ios::app | std::ios::binary);
    // A header promising 64 bytes, then the crash.
    const std::string torn("\x40\x00\x00\x00\x01\x02\x03\x04half", 12);
    tail.write(torn.data(), static_cast<std::streamsize>(torn.size()));
  }
  replica_journal j(opts);
  auto records = j.load();
  CHECK(records.size() == 5);
  CHECK(j.counters().bad_tails == 1);
  CHECK(j.counters().bytes_cut == 12);
  CHECK(std::filesystem::file_size(opts.path) == whole);
}

TEST_CASE("compaction rewrites the journal as one record per task and "
          "later appends follow it",
          "[journal]") {
  scratch dir;
  journal_options opts{dir.file("replica.journal"), journal_sync::always};
  known_tasks expected;
  {
    replica_journal j(opts);
    j.load();
    auto k = journaled_replica(j);
    j.compact(k.replica(), k.forgotten());
    CHECK(j.counters().compactions == 1);
    ev::events out;
    k.on(ev::merge_task{spec_of("t4"), false, state_of(wire::READY, 1)}, 0,
         out);
    j.flush();
    expected = k.replica();
    CHECK(j.counters().syncs >= 1);
  }
  replica_journal j(opts);
  auto records = j.load();
  CHECK(records.size() == 4); // t1..t3 compacted, then t4
  ev::events out;
  CHECK(restored(records, out).replica().same_as(expected));
}

TEST_CASE("a data dir gives each start a higher incarnation whatever the "
          "clock says, and refuses a second node while one holds it",
          "[journal]") {
  scratch dir;
  auto path = dir.file("node");
  std::uint64_t first = 0;
  {
    data_dir d(path, 5'000);
    first = d.incarnation();
    CHECK(first == 5'000);
    // A second node with the same directory, while the first runs.
    try {
      data_dir twin(path, 9'000);
      FAIL("a second node took a locked data dir");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).find("in use by another running node")
            != std::string::npos);
    }
  }
  // Restarted with the clock far behind the first start.
  data_dir later(path, 1);
  CHECK(later.incarnation() == first + 1);
}

TEST_CASE("a forgotten task stays out of a replica restarted on its journal, "
          "and compaction leaves only the forgotten ranges of it",
          "[journal][forgotten]") {
  scratch dir;
  journal_options opts{dir.file("replica.journal"), journal_sync::none};
  queue_config cfg;
  cfg.keep_finished_ms = 1000;
  std::size_t bytes_before_forgetting = 0;
  {
    replica_journal j(opts);
    j.load();
    known_tasks_machine k("a", "a#1", cfg);
    k.keep_in(&j);
    ev::events out;
    for (int i = 1; i <= 50; ++i) {
      auto spec = spec_of("t" + std::to_string(i));
      *spec.mutable_created() = make_op_id("b#1", i);
      auto done = state_of(wire::DONE, 1, "42");
      done.set_finished_time_ms(i <= 40 ? 100 : 50'000); // 10 end later
      k.on(ev::merge_task{spec, false, done}, 100, out);
    }
    j.flush();
    bytes_before_forgetting = std::filesystem::file_size(opts.path);
    k.tick(10'000, out); // t1..t40 forgotten; t41..t50 kept
    j.flush();
    REQUIRE(k.replica().size() == 10);
    REQUIRE(k.forgotten().range_count() == 1);
  }
  std::vector<wire::TakeMyTask> records;
  {
    replica_journal j(opts);
    records = j.load();
    ev::events out;
    known_tasks_machine k("a", "a#2", cfg);
    k.restore(records, 20'000, out);
    CHECK(k.replica().size() == 10);
    CHECK(k.replica().find("t1") == nullptr);
    CHECK(k.replica().find("t41") != nullptr);
    CHECK(k.forgotten().contains("b#1", 40));
    j.compact(k.replica(), k.forgotten());
  }
  // Compacted: one record of ranges and the 10 tasks kept.
  replica_journal j(opts);
  records = j.load();
  CHECK(records.size() == 11);
  CHECK(std::filesystem::file_size(opts.path) < bytes_before_forgetting / 3);
  ev::events out;
  known_tasks_machine k("a", "a#3", cfg);
  k.restore(records, 20'000, out);
  CHECK(k.replica().size() == 10);
  CHECK(k.forgotten().count() == 40);
}

TEST_CASE("a full disk costs the journal no later append: a write that "
          "failed halfway is cut back, and the next rewrite restores what "
          "it held", "[journal]") {
  scratch dir;
  journal_options opts{dir.file("replica.journal"), journal_sync::none};
  replica_journal j(opts);
  j.load();
  auto k = journaled_replica(j);
  auto whole = std::filesystem::file_size(opts.path);
  // The disk fills 20 bytes into the next append: the process's file size
  // limit stands in for it (EFBIG where a full disk gives ENOSPC).
  rlimit before{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &before) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit full = before;
  full.rlim_cur = static_cast<rlim_t>(whole + 20);
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &full) == 0);
  ev::events out;
  k.on(ev::merge_task{spec_of("t4"), false, state_of(wire::READY, 1)}, 0, out);
  j.flush();
  auto after_failure = std::filesystem::file_size(opts.path);
  ::setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  CHECK(j.counters().write_errors >= 1);
  CHECK(after_failure == whole); // no partial record left
  // Room again: the next append lands, and the rewrite it asks for brings
  // back t4, whose only record failed.
  k.on(ev::merge_task{spec_of("t5"), false, state_of(wire::READY, 1)}, 0, out);
  REQUIRE(j.flush());
  REQUIRE(j.wants_compaction(k.replica().size()));
  j.compact(k.replica(), k.forgotten());
  CHECK_FALSE(j.wants_compaction(k.replica().size()));
  replica_journal again(opts);
  ev::events restored_out;
  auto back = restored(again.load(), restored_out);
  CHECK(back.replica().has_spec("t4"));
  CHECK(back.replica().has_spec("t5"));
  CHECK(back.replica().same_as(k.replica()));
}
