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

} // namespace dice
