// The journal's file on disk: appends with write(2), syncs with fdatasync,
// and replaces through data_dir's replace_file (temporary file, fsync,
// rename), reopening the new file.
#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

#include "common/data_dir.hpp"
#include "journal/journal_file.hpp"

namespace dice {

namespace {

int open_append(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot open journal " + path + ": "
                             + std::strerror(errno));
  return fd;
}

class disk_file : public journal_file {
public:
  explicit disk_file(std::string path)
    : path_(std::move(path)), fd_(open_append(path_)) {
    auto end = ::lseek(fd_, 0, SEEK_END);
    size_ = end > 0 ? static_cast<std::size_t>(end) : 0;
  }
  ~disk_file() override { ::close(fd_); }

  std::string read_all() override {
    std::string bytes;
    char chunk[1 << 16];
    off_t at = 0;
    for (;;) {
      auto n = ::pread(fd_, chunk, sizeof(chunk), at);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      bytes.append(chunk, static_cast<std::size_t>(n));
      at += n;
    }
    size_ = static_cast<std::size_t>(at);
    return bytes;
  }

  bool append(const std::string& bytes) override {
    std::size_t done = 0;
    while (done < bytes.size()) {
      auto n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        // A partial record would end every load there, and the appends
        // after it with it.
        if (done > 0)
          truncate(size_);
        return false;
      }
      done += static_cast<std::size_t>(n);
    }
    size_ += done;
    return true;
  }

  bool truncate(std::size_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0)
      return false;
    size_ = size;
    return true;
  }

  bool sync() override { return ::fdatasync(fd_.load()) == 0; }

  bool replace(const std::string& bytes) override {
    int fresh = -1;
    try {
      replace_file(path_, bytes);
      fresh = open_append(path_);
    } catch (const std::exception&) {
      return false;
    }
    // A sync inside fdatasync on the old descriptor fails harmlessly: the
    // new file was synced before it replaced the old one.
    ::close(fd_.exchange(fresh));
    size_ = bytes.size();
    return true;
  }

private:
  std::string path_;
  std::atomic<int> fd_;
  std::size_t size_ = 0; // what append() has brought the file to
};

} // namespace

std::unique_ptr<journal_file> open_disk_file(const std::string& path) {
  return std::make_unique<disk_file>(path);
}

} // namespace dice
