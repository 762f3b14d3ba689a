#include "engine/support/prefault.h"

#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace graft {

void populate_for_writing(void* p, size_t bytes) {
#ifdef __linux__
#ifndef MADV_POPULATE_WRITE  // C library headers older than the kernel feature
  constexpr int MADV_POPULATE_WRITE = 23;
#endif
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGE_SIZE));
  if (page == 0 || (page & (page - 1)) != 0) return;
  // madvise wants a page-aligned start: populate the whole pages inside the block, and let
  // the partly covered pages at its ends fault as usual.
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  if (end > begin)
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace graft
