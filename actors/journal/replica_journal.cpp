#include "journal/replica_journal.hpp"

#include <chrono>

#include "journal/journal_frame.hpp"
#include "known_tasks/replica_record.hpp"

namespace dice {

namespace {

void frame_task(std::string& out, const std::string& task_id,
                const known_task& task, bool with_spec) {
  append_frame(out, replica_record(task_id, task, with_spec).SerializeAsString());
}

} // namespace

bool parse_journal_sync(const std::string& text, journal_sync& out) {
  if (text == "always")
    out = journal_sync::always;
  else if (text == "batch")
    out = journal_sync::batch;
  else if (text == "none")
    out = journal_sync::none;
  else
    return false;
  return true;
}

replica_journal::replica_journal(journal_options opts)
  : replica_journal(opts, open_disk_file(opts.path)) {}

replica_journal::replica_journal(journal_options opts,
                                 std::unique_ptr<journal_file> file)
  : opts_(std::move(opts)), file_(std::move(file)) {
  if (opts_.sync == journal_sync::batch)
    syncer_ = std::thread([this] { sync_loop(); });
}

replica_journal::~replica_journal() {
  flush();
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (syncer_.joinable())
    syncer_.join();
  if (opts_.sync != journal_sync::none && dirty_)
    file_->sync();
}

std::vector<wire::TakeMyTask> replica_journal::load() {
  std::lock_guard<std::mutex> guard(mutex_);
  auto bytes = file_->read_all();
  auto scan = scan_frames(bytes);
  std::vector<wire::TakeMyTask> out;
  out.reserve(scan.records.size());
  std::size_t whole = 0;
  for (auto record : scan.records) {
    wire::TakeMyTask t;
    // Whole yet undecodable: written by something else; stop trusting here.
    if (!t.ParseFromArray(record.data(), static_cast<int>(record.size()))
        || (t.spec().id().empty() && t.forgotten_size() == 0))
      break;
    whole += journal_frame_header_bytes + record.size();
    out.push_back(std::move(t));
  }
  counters_.records_loaded += out.size();
  if (whole < bytes.size()) {
    ++counters_.bad_tails;
    counters_.bytes_cut += bytes.size() - whole;
    if (!file_->truncate(whole))
      ++counters_.write_errors;
  }
  file_bytes_ = compacted_bytes_ = whole;
  return out;
}

void replica_journal::record(const std::string& task_id,
                             const known_task& task) {
  bool with_spec = task.has_spec && spec_written_.insert(task_id).second;
  frame_task(buffer_, task_id, task, with_spec);
  ++buffered_records_;
}

void replica_journal::forget(const std::string& task_id,
                             const std::vector<wire::ForgottenRange>& ranges) {
  spec_written_.erase(task_id);
  if (ranges.empty())
    return;
  append_frame(buffer_, forgotten_record(ranges).SerializeAsString());
  ++buffered_records_;
}

void replica_journal::write_out(const std::string& bytes) {
  if (!file_->append(bytes)) {
    // What the failed write held is in the replica, so the next rewrite
    // brings it back.
    ++counters_.write_errors;
    rewrite_due_ = true;
    return;
  }
  file_bytes_ += bytes.size();
  counters_.bytes_written += bytes.size();
  dirty_ = true;
}

bool replica_journal::flush() {
  if (buffer_.empty())
    return false;
  std::lock_guard<std::mutex> guard(mutex_);
  write_out(buffer_);
  counters_.records_written += buffered_records_;
  buffer_.clear();
  buffered_records_ = 0;
  if (opts_.sync == journal_sync::always) {
    if (file_->sync())
      ++counters_.syncs;
    dirty_ = false;
  } else if (opts_.sync == journal_sync::batch) {
    wake_.notify_one();
  }
  return true;
}

void replica_journal::sync_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait(lock, [this] { return dirty_ || stopping_; });
    if (stopping_)
      break;
    // Gather the writes of the next batch_ms into one sync.
    wake_.wait_for(lock, std::chrono::milliseconds(opts_.batch_ms),
                   [this] { return stopping_; });
    dirty_ = false;
    lock.unlock();
    bool ok = file_->sync();
    lock.lock();
    if (ok)
      ++counters_.syncs;
  }
}

bool replica_journal::wants_compaction(std::size_t tasks_held) const {
  std::lock_guard<std::mutex> guard(mutex_);
  return rewrite_due_
         || (file_bytes_ > opts_.compact_min_bytes
             && (file_bytes_ > 4 * compacted_bytes_
                 || 4 * tasks_held < compacted_tasks_));
}

void replica_journal::compact(const known_tasks& replica,
                              const forgotten_set& forgotten) {
  flush();
  std::string bytes;
  // The forgotten ranges, a frame of at most 1,024 each.
  auto ranges = forgotten.ranges();
  for (std::size_t i = 0; i < ranges.size(); i += 1024) {
    wire::TakeMyTask t;
    for (std::size_t k = i; k < ranges.size() && k < i + 1024; ++k)
      *t.add_forgotten() = std::move(ranges[k]);
    append_frame(bytes, t.SerializeAsString());
  }
  std::unordered_set<std::string> with_spec;
  for (const auto& [task_id, task] : replica.tasks()) {
    frame_task(bytes, task_id, task, task.has_spec);
    if (task.has_spec)
      with_spec.insert(task_id);
  }
  std::lock_guard<std::mutex> guard(mutex_);
  if (!file_->replace(bytes)) {
    ++counters_.write_errors; // the old file stays, whole
    return;
  }
  spec_written_ = std::move(with_spec);
  file_bytes_ = compacted_bytes_ = bytes.size();
  compacted_tasks_ = replica.size();
  dirty_ = false;
  rewrite_due_ = false;
  ++counters_.compactions;
}

journal_counters replica_journal::counters() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return counters_;
}

} // namespace dice
