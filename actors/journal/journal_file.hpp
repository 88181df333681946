#pragma once
// Where the journal's bytes live. On a node, a file on disk; in the seeded
// simulations, a simulated disk (simulation/sim_disk.hpp) that loses, when
// its machine crashes, whatever was written but not yet synced, as a disk's
// cache does. replica_journal writes through this and nothing else.
#include <cstddef>
#include <memory>
#include <string>

namespace dice {

class journal_file {
public:
  virtual ~journal_file() = default;
  /// Every byte of the file.
  virtual std::string read_all() = 0;
  /// Appends `bytes`, all of them or (false: the disk refused, full or
  /// gone) none: a partial write is cut back.
  virtual bool append(const std::string& bytes) = 0;
  /// Cuts the file to `size` bytes.
  virtual bool truncate(std::size_t size) = 0;
  /// Makes what was appended durable. May run on another thread than the
  /// other calls, concurrently with append().
  virtual bool sync() = 0;
  /// Replaces the whole content with `bytes`, durably, so that a crash
  /// leaves the old content or the new; false (the old one whole) on failure.
  virtual bool replace(const std::string& bytes) = 0;
};

/// The file at `path` on disk, created if missing. Throws
/// std::runtime_error naming the problem.
std::unique_ptr<journal_file> open_disk_file(const std::string& path);

} // namespace dice
