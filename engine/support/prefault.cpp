#include "engine/support/prefault.h"

#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace graft {

#ifdef __linux__
namespace {

/// madvise(advice) over the whole pages inside [p, p + bytes): madvise wants a page-aligned
/// start, and the partly covered pages at the ends are left as they are.
void advise_whole_pages(const void* p, size_t bytes, int advice) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGE_SIZE));
  if (page == 0 || (page & (page - 1)) != 0) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

}  // namespace
#endif

void populate_for_writing(void* p, size_t bytes) {
#ifdef __linux__
#ifndef MADV_POPULATE_WRITE  // C library headers older than the kernel feature
  constexpr int MADV_POPULATE_WRITE = 23;
#endif
  advise_whole_pages(p, bytes, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

void page_out(const void* p, size_t bytes) {
#ifdef __linux__
#ifndef MADV_PAGEOUT  // C library headers older than the kernel feature (Linux 5.4)
  constexpr int MADV_PAGEOUT = 21;
#endif
  advise_whole_pages(p, bytes, MADV_PAGEOUT);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace graft
