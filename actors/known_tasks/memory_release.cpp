#include "known_tasks/memory_release.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dice {

void release_freed_memory() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

void fix_malloc_thresholds() {
#if defined(__GLIBC__)
  // Blocks from 256 KiB are mapped on their own and unmapped when freed;
  // a heap top past 256 KiB goes back at once.
  constexpr int threshold = 256 * 1024;
  ::mallopt(M_MMAP_THRESHOLD, threshold);
  ::mallopt(M_TRIM_THRESHOLD, threshold);
#endif
}

} // namespace dice
