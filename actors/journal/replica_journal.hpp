#pragma once
// The replica's journal: every change of a task's merged state is appended
// as a record (the spec with a task's first record), so a node killed at
// any moment finds its replica again at restart. The state is a
// join-semilattice, so loading is merging every record in any order; no
// record needs to be undone. A task forgotten after its retention gets a
// record of its number (known_tasks/forgotten_set.hpp), which outranks its
// earlier records at load. Compaction rewrites the file as the forgotten
// ranges and one record per task held once it has grown well past that
// size, so the file holds the tasks within retention, not every task run.
//
// Appends are written when the known_tasks actor has handled an input
// (before anything it emitted leaves), so a task acknowledged to a user is
// in the file, in the kernel's hands, and survives the process being
// killed. fsync, which the machine crashing needs, follows at once
// (`always`), within batch_ms on another thread (`batch`), or never.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "common/time.hpp"
#include "dice.pb.h"
#include "journal/journal_file.hpp"
#include "known_tasks/forgotten_set.hpp"
#include "known_tasks/known_tasks.hpp"
#include "known_tasks/replica_sink.hpp"

namespace dice {

enum class journal_sync { always, batch, none };

/// "always", "batch" or "none"; false for anything else.
bool parse_journal_sync(const std::string& text, journal_sync& out);

struct journal_options {
  std::string path;
  journal_sync sync = journal_sync::batch;
  /// Appends reach the kernel before the node answers; fsync gathers the
  /// appends of this long into one (a machine crash loses at most this much,
  /// a killed process nothing).
  millis batch_ms = 5;
  /// The journal is rewritten as one record per task once it is larger than
  /// this and four times its size after the last rewrite, or the replica
  /// shrank to a quarter of what that rewrite held. Small, so a replica that
  /// forgot what it held leaves a small file: at 8 MiB the file of a node
  /// holding nothing stayed anywhere between 0.9 and 3.9 MiB, set by where
  /// the schedule stood (bench/retention). A rewrite costs what it writes,
  /// at most a quarter of what was appended since the last one.
  std::size_t compact_min_bytes = 64 * 1024;
};

struct journal_counters {
  std::uint64_t records_loaded = 0;
  std::uint64_t bad_tails = 0;    // torn or corrupt tails cut at load
  std::uint64_t bytes_cut = 0;
  std::uint64_t records_written = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t syncs = 0;
  std::uint64_t compactions = 0;
  std::uint64_t write_errors = 0; // the disk refused (full, gone)
};

class replica_journal : public replica_sink {
public:
  /// Opens (creating) the file on disk at opts.path. Throws
  /// std::runtime_error naming the problem.
  explicit replica_journal(journal_options opts);
  /// Writes to `file` (a simulated disk, say) instead.
  replica_journal(journal_options opts, std::unique_ptr<journal_file> file);
  ~replica_journal() override;
  replica_journal(const replica_journal&) = delete;
  replica_journal& operator=(const replica_journal&) = delete;

  /// Every whole record of the file, in order. A torn or corrupt tail is
  /// counted and cut from the file.
  std::vector<wire::TakeMyTask> load();

  void record(const std::string& task_id, const known_task& task) override;
  void forget(const std::string& task_id,
              const std::vector<wire::ForgottenRange>& ranges) override;
  /// Writes what record() buffered (and syncs, under `always`); false if
  /// there was nothing to write.
  bool flush();
  /// True once the file has grown to several times its compacted size, or
  /// (past the least size worth a rewrite) the replica, now holding
  /// `tasks_held`, shrank to a quarter of what the last rewrite held: its
  /// tasks were forgotten; or a write failed (a full disk) and what it
  /// held is only in the replica.
  bool wants_compaction(std::size_t tasks_held) const;
  /// Rewrites the file as the `forgotten` ranges and one record per task
  /// of `replica`; atomic.
  void compact(const known_tasks& replica, const forgotten_set& forgotten);

  journal_counters counters() const;

private:
  void sync_loop();
  void write_out(const std::string& bytes);

  journal_options opts_;
  mutable std::mutex mutex_; // counters_ and dirty_, shared with the syncer
  std::unique_ptr<journal_file> file_;
  std::string buffer_;
  std::size_t buffered_records_ = 0;
  std::size_t file_bytes_ = 0;
  std::size_t compacted_bytes_ = 0;
  std::size_t compacted_tasks_ = 0;
  std::unordered_set<std::string> spec_written_;
  journal_counters counters_;
  bool dirty_ = false; // written since the last sync
  bool rewrite_due_ = false; // a write failed since the last rewrite
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread syncer_;
};

} // namespace dice
