#include "store.hpp"

#include <chrono>
#include <filesystem>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

#include "sqlite_replica.hpp"

namespace bench {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

const char* name_of(store_kind k) {
  return k == store_kind::journal ? "journal" : "sqlite";
}

const char* name_of(dice::journal_sync s) {
  return s == dice::journal_sync::always ? "always"
         : s == dice::journal_sync::batch ? "batch" : "none";
}

namespace {

class journal_store : public store {
public:
  journal_store(const std::string& dir, dice::journal_sync sync)
    : j_(dice::journal_options{dir + "/journal", sync}) {}
  dice::replica_sink& sink() override { return j_; }
  bool flush() override { return j_.flush(); }
  void after_flush(const dice::known_tasks& r, const dice::forgotten_set& f) override {
    if (j_.wants_compaction(r.size()))
      j_.compact(r, f);
  }
  void after_load(const dice::known_tasks& r, const dice::forgotten_set& f) override {
    j_.compact(r, f);
  }
  std::vector<dice::wire::TakeMyTask> load() override { return j_.load(); }
  std::uint64_t write_errors() const override { return j_.counters().write_errors; }

private:
  dice::replica_journal j_;
};

class sqlite_store : public store {
public:
  sqlite_store(const std::string& dir, dice::journal_sync sync)
    : db_(dir + "/replica.db", sync) {}
  dice::replica_sink& sink() override { return db_; }
  bool flush() override { return db_.flush(); }
  std::vector<dice::wire::TakeMyTask> load() override { return db_.load(); }
  std::uint64_t write_errors() const override {
    return db_.write_errors() + db_.corrupt_rows();
  }
  bool checkpoint() override { return db_.checkpoint(); }
  bool vacuum() override { return db_.vacuum(); }

private:
  sqlite_replica db_;
};

} // namespace

std::unique_ptr<store> open_store(store_kind k, const std::string& dir,
                                  dice::journal_sync sync) {
  fs::create_directories(dir);
  if (k == store_kind::journal)
    return std::make_unique<journal_store>(dir, sync);
  return std::make_unique<sqlite_store>(dir, sync);
}

std::vector<std::string> store_files(store_kind k, const std::string& dir) {
  if (k == store_kind::journal)
    return {dir + "/journal"};
  return {dir + "/replica.db", dir + "/replica.db-wal"};
}

std::uint64_t store_bytes(store_kind k, const std::string& dir) {
  std::uint64_t total = 0;
  for (const auto& f : store_files(k, dir)) {
    std::error_code ec;
    auto n = fs::file_size(f, ec);
    if (!ec)
      total += n;
  }
  return total;
}

void evict_cache(store_kind k, const std::string& dir) {
  for (const auto& f : store_files(k, dir)) {
    int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    ::fdatasync(fd); // dirty pages are not dropped
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

void rebuild(const std::vector<dice::wire::TakeMyTask>& records,
             dice::known_tasks& replica, dice::forgotten_set& forgotten) {
  for (const auto& r : records)
    forgotten.merge(r.forgotten());
  for (const auto& r : records) {
    if (r.spec().id().empty())
      continue;
    if (r.spec().has_created() && forgotten.contains(r.spec().created()))
      continue;
    if (!r.spec_unknown())
      replica.learn_spec(r.spec());
    replica.merge_state(r.spec().id(), r.state());
  }
  // A spec-less record of a forgotten task (its number is in its spec).
  std::vector<std::string> gone;
  for (const auto& [id, t] : replica.tasks())
    if (t.has_spec && t.spec.has_created() && forgotten.contains(t.spec.created()))
      gone.push_back(id);
  for (const auto& id : gone)
    replica.forget(id);
}

void driver::apply(const op& o) {
  auto id = task_id(o.task);
  if (o.kind == op::record) {
    if (o.phase == dice::wire::READY)
      replica.learn_spec(task_spec(o.task));
    replica.merge_state(id, task_state(o.task, o.phase));
    const auto* t = replica.find(id);
    auto t0 = clock_type::now();
    s_.sink().record(id, *t);
    store_seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
  } else {
    std::vector<dice::wire::ForgottenRange> ranges{task_range(o.task)};
    forgotten.add(ranges[0].origin(), ranges[0].first(), ranges[0].last());
    auto t0 = clock_type::now();
    s_.sink().forget(id, ranges);
    store_seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
    replica.forget(id);
  }
  ++ops;
  if (++pending_ >= per_flush_)
    flush();
}

void driver::flush() {
  auto t0 = clock_type::now();
  if (s_.flush())
    s_.after_flush(replica, forgotten);
  store_seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
  ++flushes;
  ops_flushed += pending_;
  pending_ = 0;
  if (on_flush)
    on_flush(ops_flushed);
}

verdict verify(const std::vector<dice::wire::TakeMyTask>& loaded,
               std::uint64_t tasks, std::uint64_t lag, std::uint64_t forget_lag,
               std::uint64_t ops_flushed, std::uint64_t from) {
  verdict v;
  const std::string prefix = task_id(0).substr(0, task_id(0).size() - 1);
  dice::forgotten_set forgotten;
  std::unordered_map<std::uint64_t, int> phase; // highest loaded
  std::unordered_map<std::uint64_t, bool> spec;
  for (const auto& r : loaded) {
    for (const auto& f : r.forgotten())
      if (f.origin() != origin || f.first() < 1 || f.last() > tasks)
        ++v.corrupt;
    forgotten.merge(r.forgotten());
    if (r.spec().id().empty())
      continue;
    const auto& id = r.spec().id();
    std::uint64_t n = 0;
    try {
      if (id.compare(0, prefix.size(), prefix) != 0)
        throw 0;
      n = std::stoull(id.substr(prefix.size()));
    } catch (...) {
      ++v.corrupt;
      continue;
    }
    auto p = r.state().phase();
    bool genuine = n < tasks
                   && (p == dice::wire::READY || p == dice::wire::RUNNING
                       || p == dice::wire::DONE)
                   && r.state().SerializeAsString()
                        == task_state(n, p).SerializeAsString()
                   && (r.spec_unknown()
                       || r.spec().SerializeAsString()
                            == task_spec(n).SerializeAsString());
    if (!genuine) {
      ++v.corrupt;
      continue;
    }
    auto& ph = phase.emplace(n, -1).first->second;
    ph = std::max(ph, static_cast<int>(p));
    spec[n] = spec[n] || !r.spec_unknown();
  }
  // What the first ops_flushed ops wrote.
  op_stream ops(tasks, lag, forget_lag);
  std::unordered_map<std::uint64_t, int> want;
  std::unordered_map<std::uint64_t, bool> gone;
  op o;
  for (std::uint64_t i = 0; i < ops_flushed && ops.next(o); ++i) {
    if (o.kind == op::record && o.phase == dice::wire::READY && i < from)
      continue;
    if (!want.count(o.task) && !(o.kind == op::record && o.phase == dice::wire::READY))
      continue; // enqueued before `from`
    if (o.kind == op::forget)
      gone[o.task] = true;
    else
      want[o.task] = std::max(want[o.task], static_cast<int>(o.phase));
  }
  for (const auto& [n, p] : want) {
    bool forgotten_now = forgotten.contains(origin, n + 1);
    if (gone.count(n)) {
      v.lost += !forgotten_now;
      continue;
    }
    if (forgotten_now) // forgotten by a later op that made it to disk
      continue;
    auto it = phase.find(n);
    if (it == phase.end() || it->second < p || !spec[n])
      ++v.lost;
  }
  for (const auto& [n, p] : phase)
    v.tasks_loaded += !forgotten.contains(origin, n + 1);
  return v;
}

} // namespace bench
