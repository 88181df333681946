#include "sqlite_replica.hpp"

#include <stdexcept>

#include <sqlite3.h>

namespace bench {

namespace {

const char* schema =
  "CREATE TABLE IF NOT EXISTS tasks(id TEXT PRIMARY KEY, spec BLOB,"
  " state BLOB NOT NULL) WITHOUT ROWID;"
  "CREATE TABLE IF NOT EXISTS forgotten(origin TEXT NOT NULL,"
  " first INTEGER NOT NULL, last INTEGER NOT NULL,"
  " PRIMARY KEY(origin, first)) WITHOUT ROWID;"
  "CREATE INDEX IF NOT EXISTS forgotten_last ON forgotten(origin, last);";

void bind_text(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}

void bind_blob(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_blob(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}

bool step_done(sqlite3_stmt* s) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  return rc == SQLITE_DONE;
}

} // namespace

sqlite_replica::sqlite_replica(const std::string& path, dice::journal_sync sync) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("cannot open " + path + ": " + why);
  }
  const char* level = sync == dice::journal_sync::always ? "FULL"
                      : sync == dice::journal_sync::batch ? "NORMAL"
                                                          : "OFF";
  if (!exec("PRAGMA journal_mode=WAL")
      || !exec((std::string("PRAGMA synchronous=") + level).c_str())
      || !exec(schema)) {
    auto why = last_error_;
    sqlite3_close(db_);
    throw std::runtime_error("cannot open " + path + ": " + why);
  }
  put_spec_ = prepare("INSERT INTO tasks(id, spec, state) VALUES(?1, ?2, ?3)"
                      " ON CONFLICT(id) DO UPDATE SET spec = excluded.spec,"
                      " state = excluded.state");
  put_state_ = prepare("INSERT INTO tasks(id, state) VALUES(?1, ?2)"
                       " ON CONFLICT(id) DO UPDATE SET state = excluded.state");
  drop_ = prepare("DELETE FROM tasks WHERE id = ?1");
  // Numbers are forgotten mostly in order: extend the range that ends just
  // below, else a new row (overlaps are harmless: load takes the union).
  extend_ = prepare("UPDATE forgotten SET last = ?3"
                    " WHERE origin = ?1 AND last = ?2 - 1");
  add_range_ = prepare("INSERT OR IGNORE INTO forgotten VALUES(?1, ?2, ?3)");
}

sqlite_replica::~sqlite_replica() {
  flush();
  for (auto* s : {put_spec_, put_state_, drop_, extend_, add_range_})
    sqlite3_finalize(s);
  sqlite3_close(db_);
}

sqlite3_stmt* sqlite_replica::prepare(const char* sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr)
      != SQLITE_OK)
    throw std::runtime_error(std::string("cannot prepare: ") + sqlite3_errmsg(db_));
  return s;
}

bool sqlite_replica::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) == SQLITE_OK)
    return true;
  last_error_ = err ? err : sqlite3_errmsg(db_);
  sqlite3_free(err);
  return false;
}

void sqlite_replica::record(const std::string& task_id,
                            const dice::known_task& task) {
  change c;
  c.id = task_id;
  c.state = task.state.SerializeAsString();
  c.kind = change::put_state;
  if (task.has_spec && spec_written_.insert(task_id).second) {
    c.kind = change::put_spec;
    c.spec = task.spec.SerializeAsString();
  }
  buffer_.push_back(std::move(c));
}

void sqlite_replica::forget(const std::string& task_id,
                            const std::vector<dice::wire::ForgottenRange>& ranges) {
  spec_written_.erase(task_id);
  if (!task_id.empty()) {
    change c;
    c.kind = change::drop;
    c.id = task_id;
    buffer_.push_back(std::move(c));
  }
  for (const auto& r : ranges) {
    change c;
    c.kind = change::range;
    c.r = r;
    buffer_.push_back(std::move(c));
  }
}

bool sqlite_replica::apply(const change& c) {
  switch (c.kind) {
    case change::put_spec:
      bind_text(put_spec_, 1, c.id);
      bind_blob(put_spec_, 2, c.spec);
      bind_blob(put_spec_, 3, c.state);
      return step_done(put_spec_);
    case change::put_state:
      bind_text(put_state_, 1, c.id);
      bind_blob(put_state_, 2, c.state);
      return step_done(put_state_);
    case change::drop:
      bind_text(drop_, 1, c.id);
      return step_done(drop_);
    case change::range: {
      bind_text(extend_, 1, c.r.origin());
      sqlite3_bind_int64(extend_, 2, static_cast<sqlite3_int64>(c.r.first()));
      sqlite3_bind_int64(extend_, 3, static_cast<sqlite3_int64>(c.r.last()));
      if (!step_done(extend_))
        return false;
      if (sqlite3_changes(db_) > 0)
        return true;
      bind_text(add_range_, 1, c.r.origin());
      sqlite3_bind_int64(add_range_, 2, static_cast<sqlite3_int64>(c.r.first()));
      sqlite3_bind_int64(add_range_, 3, static_cast<sqlite3_int64>(c.r.last()));
      return step_done(add_range_);
    }
  }
  return false;
}

bool sqlite_replica::flush() {
  if (buffer_.empty())
    return false;
  bool ok = exec("BEGIN IMMEDIATE");
  for (std::size_t i = 0; ok && i < buffer_.size(); ++i)
    if (!apply(buffer_[i])) {
      last_error_ = sqlite3_errmsg(db_);
      ok = false;
    }
  ok = ok && exec("COMMIT");
  if (!ok) {
    ++write_errors_;
    if (!sqlite3_get_autocommit(db_))
      exec("ROLLBACK");
  }
  buffer_.clear();
  return true;
}

bool sqlite_replica::checkpoint() {
  return sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE,
                                   nullptr, nullptr)
         == SQLITE_OK;
}

bool sqlite_replica::vacuum() { return exec("VACUUM"); }

std::vector<dice::wire::TakeMyTask> sqlite_replica::load() {
  std::vector<dice::wire::TakeMyTask> out;
  sqlite3_stmt* s = prepare("SELECT origin, first, last FROM forgotten");
  dice::wire::TakeMyTask ranges;
  while (sqlite3_step(s) == SQLITE_ROW) {
    auto* r = ranges.add_forgotten();
    r->set_origin(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    r->set_first(static_cast<std::uint64_t>(sqlite3_column_int64(s, 1)));
    r->set_last(static_cast<std::uint64_t>(sqlite3_column_int64(s, 2)));
    if (ranges.forgotten_size() == 1024)
      out.push_back(std::move(ranges)), ranges.Clear();
  }
  if (ranges.forgotten_size() > 0)
    out.push_back(std::move(ranges));
  sqlite3_finalize(s);
  s = prepare("SELECT id, spec, state FROM tasks");
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    dice::wire::TakeMyTask t;
    bool ok = t.mutable_state()->ParseFromArray(sqlite3_column_blob(s, 2),
                                                sqlite3_column_bytes(s, 2));
    if (sqlite3_column_type(s, 1) == SQLITE_NULL) {
      t.set_spec_unknown(true);
      t.mutable_spec()->set_id(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    } else {
      ok = ok && t.mutable_spec()->ParseFromArray(sqlite3_column_blob(s, 1),
                                                  sqlite3_column_bytes(s, 1));
    }
    if (ok)
      out.push_back(std::move(t));
    else
      ++corrupt_rows_;
  }
  if (rc != SQLITE_DONE) {
    ++corrupt_rows_;
    last_error_ = sqlite3_errmsg(db_);
  }
  sqlite3_finalize(s);
  // What is loaded counts as written: a task's next record carries no spec.
  for (const auto& t : out)
    if (!t.spec_unknown() && !t.spec().id().empty())
      spec_written_.insert(t.spec().id());
  return out;
}

} // namespace bench
