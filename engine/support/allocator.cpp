#include "engine/support/allocator.h"

#include <cstdlib>

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

}  // namespace graft
