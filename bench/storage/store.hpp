#pragma once
// The two stores behind one face, and the loop that feeds them the queue's
// work the way the known_tasks actor does: each change merged into the
// replica, handed to the store, a flush every `per_flush` changes (one per
// handled input batch), then the journal's own rewrite when it wants one.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dice.pb.h"
#include "journal/replica_journal.hpp"
#include "known_tasks/forgotten_set.hpp"
#include "known_tasks/known_tasks.hpp"
#include "workload.hpp"

namespace bench {

enum class store_kind { journal, sqlite };
const char* name_of(store_kind k);
const char* name_of(dice::journal_sync s);

class store {
public:
  virtual ~store() = default;
  virtual dice::replica_sink& sink() = 0;
  virtual bool flush() = 0;
  /// After a flush that wrote (the journal: compact when it wants to).
  virtual void after_flush(const dice::known_tasks&, const dice::forgotten_set&) {}
  /// At restart, once the replica is rebuilt (the journal rewrites itself).
  virtual void after_load(const dice::known_tasks&, const dice::forgotten_set&) {}
  virtual std::vector<dice::wire::TakeMyTask> load() = 0;
  virtual std::uint64_t write_errors() const = 0;
  virtual bool checkpoint() { return true; }
  virtual bool vacuum() { return true; }
};

/// The store's files in `dir` (created if absent). Throws on failure.
std::unique_ptr<store> open_store(store_kind k, const std::string& dir,
                                  dice::journal_sync sync);
/// The files a restart reads: the journal, or SQLite's database and WAL.
std::vector<std::string> store_files(store_kind k, const std::string& dir);
std::uint64_t store_bytes(store_kind k, const std::string& dir);
/// Drops the store's pages from the page cache, so a load reads the disk.
void evict_cache(store_kind k, const std::string& dir);

/// Merges loaded records into a replica, as known_tasks' restore does.
void rebuild(const std::vector<dice::wire::TakeMyTask>& records,
             dice::known_tasks& replica, dice::forgotten_set& forgotten);

class driver {
public:
  driver(store& s, std::size_t per_flush) : s_(s), per_flush_(per_flush) {}
  void apply(const op& o);
  void flush();

  dice::known_tasks replica;
  dice::forgotten_set forgotten;
  std::uint64_t ops = 0, ops_flushed = 0, flushes = 0;
  double store_seconds = 0; // in the store's calls only, not the merges
  /// Called after each flush with ops_flushed.
  std::function<void(std::uint64_t)> on_flush;

private:
  store& s_;
  std::size_t per_flush_;
  std::size_t pending_ = 0;
};

/// What a load gave, against the ops a writer reported flushed: ops
/// [0, ops_flushed) of op_stream(tasks, lag, forget_lag), counting only
/// tasks enqueued by op `from` or later.
struct verdict {
  std::uint64_t tasks_loaded = 0; // held, not forgotten
  std::uint64_t lost = 0;         // flushed, yet missing or older at load
  std::uint64_t corrupt = 0;      // loaded, yet no record the writer wrote
};
verdict verify(const std::vector<dice::wire::TakeMyTask>& loaded,
               std::uint64_t tasks, std::uint64_t lag, std::uint64_t forget_lag,
               std::uint64_t ops_flushed, std::uint64_t from = 0);

} // namespace bench
