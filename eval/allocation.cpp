#include "eval/allocation.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "engine/support/prefault.h"

namespace graft::eval {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

size_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return SIZE_MAX;  // unknown: let the allocator decide
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
}

}  // namespace

namespace detail {

void* allocate_raw(size_t bytes, size_t alignment, bool zero_fill, std::string* why) {
  static const size_t physical = physical_memory_bytes();
  if (bytes > physical) {
    *why = "this machine has " + format_bytes(static_cast<double>(physical)) + " of memory";
    return nullptr;
  }
  // Buffers of 2 MiB and more (weights, the activation arena) are read end to end on every run:
  // aligned to 2 MiB and advised to the kernel as huge-page candidates, they take one TLB
  // entry per 2 MiB instead of 512 (transparent huge pages in 'madvise' mode, Debian's default).
  const bool huge = bytes >= kHugePage;
  if (huge) alignment = std::max(alignment, kHugePage);
  // aligned_alloc wants a multiple of the alignment; a zero-byte request still gets a buffer.
  size_t rounded = bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
  // Small buffers (folded batch-norm scales, test tensors) come from plain malloc: glibc's
  // memalign splits a larger chunk for every call, and freeing the pieces made malloc/free
  // the top cost of constant folding. malloc's 16-byte alignment is all a few cache lines
  // need; oneDNN only prefers (does not require) more.
  constexpr size_t kSmall = 1024;
  void* p = rounded <= kSmall ? std::malloc(rounded) : std::aligned_alloc(alignment, rounded);
  if (p == nullptr) {
    *why = std::strerror(ENOMEM);
    return nullptr;
  }
  // Advice only (it may be refused), and only for the whole huge pages the buffer fills: its
  // tail stays in small pages, so that rounding costs address space, not memory.
  if (huge) ::madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
  if (zero_fill) std::memset(p, 0, rounded);
  return p;
}

}  // namespace detail

namespace {

/// Chunks whose buffers are all gone, kept for the next arena that needs one (any thread's):
/// a process that rewrites graph after graph (`rewrite test`, a service, the benchmark's runs)
/// would otherwise free and fault in 2 MiB per chunk again each time. A few at most.
class SpareChunks {
 public:
  static SpareChunks& get() {
    static SpareChunks* spares = new SpareChunks();  // never destroyed: chunks die late
    return *spares;
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }
  void* take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (count_ == 0) return nullptr;
    return chunks_[--count_];
  }
  void give_back(void* chunk) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (count_ < kMax) {
        chunks_[count_++] = chunk;
        return;
      }
    }
    std::free(chunk);
  }

 private:
  static constexpr size_t kMax = 2;
  std::mutex mutex_;
  void* chunks_[kMax] = {};
  size_t count_ = 0;
};

}  // namespace

size_t BufferArena::spare_chunk_count() { return SpareChunks::get().count(); }

std::shared_ptr<void> BufferArena::new_chunk(std::string* why) {
  void* p = SpareChunks::get().take();
  if (p == nullptr) {
    p = detail::allocate_raw(kChunkBytes, kChunkBytes, false, why);
    if (p == nullptr) return nullptr;
    // The chunk is about to be carved into folded tensors that are written at once. (A spare
    // one was populated when it was new, and written since.)
    populate_for_writing(p, kChunkBytes);
  }
  return std::shared_ptr<void>(p, [](void* q) { SpareChunks::get().give_back(q); });
}

namespace detail {

void throw_allocation_error(size_t bytes, const std::string& what, const std::string& why) {
  throw AllocationError("cannot allocate " + format_bytes(static_cast<double>(bytes)) + " for " +
                        what + ": " + why);
}

}  // namespace detail

}  // namespace graft::eval
