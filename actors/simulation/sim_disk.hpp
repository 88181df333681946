#pragma once
// A simulated machine's disk, under the journal (journal/journal_file.hpp):
// appended bytes become durable only when synced. When the machine
// crashes, each file keeps what was synced and a seeded part of the rest:
// the disk may have written some of its cache, a record perhaps in half,
// which the journal cuts at load as a torn tail. So a simulation finds
// what `--sync none` or a missing sync would lose.
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "journal/journal_file.hpp"

namespace dice {

class sim_disk {
public:
  explicit sim_disk(std::uint64_t seed) : rng_(seed) {}

  /// The file at `path`, created empty if new; it stays on this disk
  /// when the handle is gone (as a file outlives its process).
  std::unique_ptr<journal_file> open(const std::string& path);
  /// The machine lost power: every file falls back to its synced bytes
  /// and a random prefix of the rest.
  void crash();
  /// Bytes written but lost to crashes, all files.
  std::uint64_t bytes_lost() const { return bytes_lost_; }

  struct file_state;

private:
  std::map<std::string, std::shared_ptr<file_state>> files_;
  std::mt19937_64 rng_;
  std::uint64_t bytes_lost_ = 0;
};

} // namespace dice
