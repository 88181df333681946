#include "known_tasks/memory_release.hpp"

#include <cstddef>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// jemalloc's control call, when the program links jemalloc (dice-node,
// dice-sim); null in a host that does not.
extern "C" int mallctl(const char*, void*, std::size_t*, void*, std::size_t)
  __attribute__((weak));

namespace dice {

void release_freed_memory() {
  if (mallctl) {
    // Every arena's unused dirty pages back to the system now, instead of
    // over jemalloc's decay time (4096: MALLCTL_ARENAS_ALL).
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
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
