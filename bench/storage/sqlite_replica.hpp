#pragma once
// A prototype of the replica kept in SQLite (WAL mode) instead of the
// journal, for bench_storage only: one row per task keyed by id (spec and
// state as protobuf blobs), a table of forgotten ranges, a task deleted
// when forgotten. Changes are buffered like the journal's and written as
// one transaction per flush(); `always` commits with synchronous=FULL (an
// fsync per commit), `batch` with NORMAL (WAL synced at checkpoints only).
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "dice.pb.h"
#include "journal/replica_journal.hpp" // journal_sync
#include "known_tasks/replica_sink.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace bench {

class sqlite_replica : public dice::replica_sink {
public:
  /// Opens (creating) the database. Throws std::runtime_error with
  /// SQLite's message.
  sqlite_replica(const std::string& path, dice::journal_sync sync);
  ~sqlite_replica() override;
  sqlite_replica(const sqlite_replica&) = delete;
  sqlite_replica& operator=(const sqlite_replica&) = delete;

  /// The forgotten ranges (in records of up to 1,024), then one record
  /// per task; rows that do not parse are skipped and counted.
  std::vector<dice::wire::TakeMyTask> load();
  void record(const std::string& task_id, const dice::known_task& task) override;
  void forget(const std::string& task_id,
              const std::vector<dice::wire::ForgottenRange>& ranges) override;
  /// One transaction of what was buffered; false if there was nothing.
  /// A failed commit is rolled back, counted and its changes dropped.
  bool flush();
  /// wal_checkpoint(TRUNCATE) and VACUUM, for the disk-use measurement.
  bool checkpoint();
  bool vacuum();

  std::uint64_t write_errors() const { return write_errors_; }
  std::uint64_t corrupt_rows() const { return corrupt_rows_; }
  const std::string& last_error() const { return last_error_; }

private:
  struct change {
    enum { put_spec, put_state, drop, range } kind;
    std::string id, spec, state;
    dice::wire::ForgottenRange r;
  };
  bool exec(const char* sql);
  bool apply(const change& c);
  sqlite3_stmt* prepare(const char* sql);

  sqlite3* db_ = nullptr;
  sqlite3_stmt* put_spec_ = nullptr;
  sqlite3_stmt* put_state_ = nullptr;
  sqlite3_stmt* drop_ = nullptr;
  sqlite3_stmt* extend_ = nullptr;
  sqlite3_stmt* add_range_ = nullptr;
  std::vector<change> buffer_;
  std::unordered_set<std::string> spec_written_;
  std::uint64_t write_errors_ = 0;
  std::uint64_t corrupt_rows_ = 0;
  std::string last_error_;
};

} // namespace bench
