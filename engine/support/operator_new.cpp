// operator new and delete on mimalloc, for the executables that link it (GRAFT_MIMALLOC): new
// throws std::bad_alloc when memory runs out, so `rewrite` reports "out of memory" and exits 1.
// Debian's libmimalloc is built as C, where its own operator new cannot throw and calls abort()
// instead (ignoring any std::new_handler). Compiled into each executable (an interface source of
// graft::allocator), where these definitions take precedence over the library's.
#include <mimalloc.h>

#include <cstddef>
#include <new>

namespace {

/// The standard's loop for a failed allocation: the new-handler, if one is installed, may
/// free memory and return (then try again) or throw; without one, bad_alloc.
[[gnu::noinline]] void* retry(std::size_t n, std::size_t alignment) {
  for (;;) {
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
    void* p = alignment == 0 ? mi_malloc(n) : mi_malloc_aligned(n, alignment);
    if (p != nullptr) return p;
  }
}

void* allocate(std::size_t n) {
  void* p = mi_malloc(n);
  return p != nullptr ? p : retry(n, 0);
}

void* allocate(std::size_t n, std::align_val_t al) {
  void* p = mi_malloc_aligned(n, static_cast<std::size_t>(al));
  return p != nullptr ? p : retry(n, static_cast<std::size_t>(al));
}

template <typename... Args>
void* allocate_nothrow(std::size_t n, Args... args) noexcept {
  try {
    return allocate(n, args...);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, std::align_val_t al) { return allocate(n, al); }
void* operator new[](std::size_t n, std::align_val_t al) { return allocate(n, al); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate_nothrow(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate_nothrow(n); }
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return allocate_nothrow(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return allocate_nothrow(n, al);
}

void operator delete(void* p) noexcept { mi_free(p); }
void operator delete[](void* p) noexcept { mi_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { mi_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { mi_free(p); }
void operator delete(void* p, std::size_t n) noexcept { mi_free_size(p, n); }
void operator delete[](void* p, std::size_t n) noexcept { mi_free_size(p, n); }
void operator delete(void* p, std::align_val_t al) noexcept {
  mi_free_aligned(p, static_cast<std::size_t>(al));
}
void operator delete[](void* p, std::align_val_t al) noexcept {
  mi_free_aligned(p, static_cast<std::size_t>(al));
}
void operator delete(void* p, std::size_t n, std::align_val_t al) noexcept {
  mi_free_size_aligned(p, n, static_cast<std::size_t>(al));
}
void operator delete[](void* p, std::size_t n, std::align_val_t al) noexcept {
  mi_free_size_aligned(p, n, static_cast<std::size_t>(al));
}
void operator delete(void* p, std::align_val_t al, const std::nothrow_t&) noexcept {
  mi_free_aligned(p, static_cast<std::size_t>(al));
}
void operator delete[](void* p, std::align_val_t al, const std::nothrow_t&) noexcept {
  mi_free_aligned(p, static_cast<std::size_t>(al));
}
