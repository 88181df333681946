#include "common/data_dir.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dice {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void fsync_path(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags);
  if (fd < 0)
    fail("cannot open " + path);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0)
    fail("cannot sync " + path);
}

} // namespace

void replace_file(const std::string& path, const std::string& bytes, mode_t mode) {
  auto tmp = path + ".tmp";
  auto failed = [&](const std::string& what, int fd) {
    auto saved = errno;
    if (fd >= 0)
      ::close(fd);
    ::unlink(tmp.c_str());
    errno = saved;
    fail("cannot " + what + " " + tmp);
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0)
    failed("create", -1);
  // The umask may have taken bits away, never added: `mode` exactly (a
  // keyring must not stay readable by others for a moment).
  ::fchmod(fd, mode);
  std::size_t done = 0;
  while (done < bytes.size()) {
    auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      failed("write", fd);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0)
    failed("sync", fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    failed("rename", -1);
  auto dir = std::filesystem::path(path).parent_path().string();
  fsync_path(dir.empty() ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

data_dir::data_dir(std::string path, std::uint64_t first)
  : path_(std::move(path)) {
  std::error_code ec;
  std::filesystem::create_directories(path_, ec);
  if (ec)
    throw std::runtime_error("cannot create data dir " + path_ + ": "
                             + ec.message());
  auto lock = file("lock");
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0)
    fail("cannot open " + lock);
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    auto holder = read_all(lock);
    ::close(lock_fd_);
    throw std::runtime_error("data dir " + path_
                             + " is in use by another running node (pid "
                             + (holder.empty() ? "unknown" : holder)
                             + "); give each node its own --data-dir");
  }
  auto pid = std::to_string(::getpid());
  if (::ftruncate(lock_fd_, 0) != 0
      || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0)
    fail("cannot write " + lock);
  // An unreadable counter (not written by us) counts as no earlier start.
  incarnation_ = first;
  auto stored = read_all(file("incarnation"));
  try {
    if (!stored.empty())
      incarnation_ = std::stoull(stored) + 1;
  } catch (const std::exception&) {
  }
  replace_file(file("incarnation"), std::to_string(incarnation_));
}

data_dir::~data_dir() {
  if (lock_fd_ >= 0)
    ::close(lock_fd_); // releases the lock
}

std::string data_dir::file(const std::string& name) const {
  return (std::filesystem::path(path_) / name).string();
}

} // namespace dice
