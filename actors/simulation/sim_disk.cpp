#include "simulation/sim_disk.hpp"

#include <algorithm>
#include <mutex>

namespace dice {

// A file's bytes and how many of them, from the start, are durable: the
// journal only appends, cuts and replaces, so what survives is a prefix.
struct sim_disk::file_state {
  std::mutex mutex; // the journal's syncer may sync from its own thread
  std::string bytes;
  std::size_t durable = 0;
};

namespace {

class sim_file : public journal_file {
public:
  explicit sim_file(std::shared_ptr<sim_disk::file_state> f) : f_(std::move(f)) {}

  std::string read_all() override {
    std::lock_guard<std::mutex> guard(f_->mutex);
    return f_->bytes;
  }
  bool append(const std::string& bytes) override {
    std::lock_guard<std::mutex> guard(f_->mutex);
    f_->bytes += bytes;
    return true;
  }
  bool truncate(std::size_t size) override {
    std::lock_guard<std::mutex> guard(f_->mutex);
    f_->bytes.resize(std::min(size, f_->bytes.size()));
    f_->durable = std::min(f_->durable, f_->bytes.size());
    return true;
  }
  bool sync() override {
    std::lock_guard<std::mutex> guard(f_->mutex);
    f_->durable = f_->bytes.size();
    return true;
  }
  bool replace(const std::string& bytes) override {
    std::lock_guard<std::mutex> guard(f_->mutex);
    f_->bytes = bytes;
    f_->durable = bytes.size();
    return true;
  }

private:
  std::shared_ptr<sim_disk::file_state> f_;
};

} // namespace

std::unique_ptr<journal_file> sim_disk::open(const std::string& path) {
  auto& f = files_[path];
  if (!f)
    f = std::make_shared<file_state>();
  return std::make_unique<sim_file>(f);
}

void sim_disk::crash() {
  for (auto& [path, f] : files_) {
    std::lock_guard<std::mutex> guard(f->mutex);
    auto unsynced = f->bytes.size() - f->durable;
    auto kept = unsynced == 0 ? 0 : rng_() % (unsynced + 1);
    f->bytes.resize(f->durable + kept);
    f->durable = f->bytes.size();
    bytes_lost_ += unsynced - kept;
  }
}

} // namespace dice
