#include "journal/replica_journal.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/data_dir.hpp"
#include "journal/journal_frame.hpp"
#include "known_tasks/replica_record.hpp"

namespace dice {

namespace {

int open_append(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot open journal " + path + ": "
                             + std::strerror(errno));
  return fd;
}

std::string read_fd(int fd) {
  std::string bytes;
  char chunk[1 << 16];
  off_t at = 0;
  for (;;) {
    auto n = ::pread(fd, chunk, sizeof(chunk), at);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    bytes.append(chunk, static_cast<std::size_t>(n));
    at += n;
  }
  return bytes;
}

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
  : opts_(std::move(opts)), fd_(open_append(opts_.path)) {
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
    ::fdatasync(fd_);
  ::close(fd_);
}

std::vector<wire::TakeMyTask> replica_journal::load() {
  std::lock_guard<std::mutex> guard(mutex_);
  auto bytes = read_fd(fd_);
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
    if (::ftruncate(fd_, static_cast<off_t>(whole)) != 0)
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
  std::size_t done = 0;
  while (done < bytes.size()) {
    auto n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ++counters_.write_errors;
      // A partial record would end every load there, and the appends
      // after it with it: cut back to the last whole one. What the failed
      // write held is in the replica, so the next rewrite brings it back.
      if (done > 0 && ::ftruncate(fd_, static_cast<off_t>(file_bytes_)) != 0)
        ++counters_.write_errors;
      rewrite_due_ = true;
      return;
    }
    done += static_cast<std::size_t>(n);
  }
  file_bytes_ += done;
  counters_.bytes_written += done;
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
    if (::fdatasync(fd_) == 0)
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
    int fd = fd_;
    lock.unlock();
    bool ok = ::fdatasync(fd) == 0;
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
  int fresh = -1;
  try {
    replace_file(opts_.path, bytes);
    fresh = open_append(opts_.path);
  } catch (const std::exception&) {
    ++counters_.write_errors; // the old file stays, whole
    return;
  }
  // A syncer inside fdatasync on the old descriptor fails harmlessly: the
  // new file was synced before it replaced the old one.
  ::close(fd_);
  fd_ = fresh;
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
