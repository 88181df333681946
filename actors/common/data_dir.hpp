#pragma once
// A node's data directory: what must outlive the process (the replica's
// journal, the incarnation counter). The node holds an exclusive lock on it
// while it runs, so a second node started with the same directory (the same
// id, usually) is refused instead of sharing the files.
#include <cstdint>
#include <string>
#include <sys/types.h>

namespace dice {

class data_dir {
public:
  /// Creates the directory if needed, locks it and takes this start's
  /// incarnation: one more than the previous start's, whatever the wall
  /// clock says now, so a node restarted with its clock set back is still
  /// newer than its predecessor. `first` is the incarnation of a first
  /// start (no earlier one recorded). Throws std::runtime_error naming the
  /// problem (not writable, locked by another process with its pid).
  data_dir(std::string path, std::uint64_t first);
  ~data_dir();
  data_dir(const data_dir&) = delete;
  data_dir& operator=(const data_dir&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t incarnation() const { return incarnation_; }
  /// The path of a file in the directory.
  std::string file(const std::string& name) const;

private:
  std::string path_;
  int lock_fd_ = -1;
  std::uint64_t incarnation_ = 0;
};

/// Writes `bytes` to `path` so that a crash leaves either the old or the new
/// content: a temporary file, fsync, rename, fsync of the directory. The
/// file gets exactly `mode` (the umask aside). Throws std::runtime_error
/// ("cannot write PATH.tmp: reason") on failure, the temporary file gone.
void replace_file(const std::string& path, const std::string& bytes,
                  mode_t mode = 0644);

} // namespace dice
