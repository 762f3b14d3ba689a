#include "engine/support/allocator.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#ifdef GRAFT_WITH_MIMALLOC
#include <mimalloc.h>
#endif

namespace graft {

std::string allocator_name() {
#ifdef GRAFT_WITH_MIMALLOC
  // Linking mimalloc does not prove that it serves malloc() (a preloaded allocator, or a
  // linker that dropped the library, would say otherwise): ask it about a block malloc made.
  // (Zeroed: GCC takes the const pointer parameter for a read of the block.)
  void* probe = std::calloc(1, 64);
  bool ours = probe != nullptr && mi_is_in_heap_region(probe);
  std::free(probe);
  if (ours) {
    int v = mi_version();  // 209 for 2.0.9
    return "mimalloc " + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." +
           std::to_string(v % 10);
  }
#endif
  return "the system malloc";
}

namespace {

// mimalloc's own default decommit delay (2.0.9): long enough for a kernel's buffer freed after
// one call to serve the next.
constexpr long kDecommitDelayMs = 25;

// A model.json's document is freed with a stack of up to 16 bytes per node: room for 16 million.
constexpr size_t kReserveBytes = size_t{256} << 20;
std::atomic<void*> reserve{nullptr};

void on_out_of_memory() {
  if (void* p = reserve.exchange(nullptr)) ::munmap(p, kReserveBytes);
  if (::syscall(SYS_gettid) != ::getpid()) {
    // Another thread: oneDNN's OpenMP workers, which an exception cannot leave (it would end
    // in std::terminate). No output is being written while they run, so end here as main
    // would, with the message (written without allocating) and exit code 1.
    for (const char* part : {static_cast<const char*>(program_invocation_short_name),
                             ": error: out of memory\n"}) {
      [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, part, std::strlen(part));
    }
    ::_exit(1);
  }
  throw std::bad_alloc();
}

}  // namespace

void install_out_of_memory_handler() {
  if (reserve.load() == nullptr) {
    void* p = ::mmap(nullptr, kReserveBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) reserve.store(p);  // without a reserve, bad_alloc is still thrown
  }
  std::set_new_handler(on_out_of_memory);
}

void return_freed_memory_at_once() {
#ifdef GRAFT_WITH_MIMALLOC
  mi_option_set(mi_option_decommit_delay, 0);
#endif
}

void keep_freed_memory_for_reuse() {
#ifdef GRAFT_WITH_MIMALLOC
  mi_option_set(mi_option_decommit_delay, kDecommitDelayMs);
#endif
}

}  // namespace graft
