#pragma once
// When a node hands the memory of forgotten tasks back to the system.
// glibc's malloc keeps what the process freed for later allocations, so a
// replica that forgot 100,000 tasks keeps its peak RSS unless asked to
// release it (bench/README.md, retention: 40 -> 25 MiB after a release).
// A release walks the heap: only after the replica shrank (tasks forgotten,
// or forgotten ids leaving the recent list), at most once per interval,
// and once more when the recent list empties: the last shrink, after which
// no tick may come to release what is still pending.
#include <cstdint>

#include "common/time.hpp"

namespace dice {

/// The most often a node returns the memory of forgotten tasks to the
/// system (a walk of the heap): a few MiB a time at 1,000 tasks/s.
constexpr millis memory_release_ms = 10'000;

class memory_release {
public:
  explicit memory_release(millis interval_ms) : interval_ms_(interval_ms) {}

  /// `forgotten`: tasks forgotten so far; `recent`: ids on the recent list.
  /// True if the freed memory should be released now.
  bool due(millis now, std::uint64_t forgotten, std::size_t recent) {
    bool shrank = forgotten != forgotten_ || recent < recent_;
    bool emptied = recent == 0 && recent_ > 0;
    forgotten_ = forgotten;
    recent_ = recent;
    pending_ |= shrank;
    if (!pending_ || (now - last_ < interval_ms_ && !emptied))
      return false;
    pending_ = false;
    last_ = now;
    return true;
  }

private:
  millis interval_ms_;
  millis last_ = 0;
  std::uint64_t forgotten_ = 0;
  std::size_t recent_ = 0;
  bool pending_ = false;
};

/// Returns the heap's free pages to the system (glibc's malloc_trim; a
/// no-op elsewhere).
void release_freed_memory();

/// Fixes glibc's mmap and trim thresholds (a no-op elsewhere). Left
/// dynamic, each large block freed raises them (up to 32 and 64 MiB), so
/// the arenas of threads that once parsed a large submit keep megabytes a
/// release cannot return: the entry node of a 1,000,000-task run ended
/// 6 MiB above its 10,000-task figure (bench/README.md, retention). For a
/// process's main only: an embedding leaves its host's malloc alone.
void fix_malloc_thresholds();

} // namespace dice
