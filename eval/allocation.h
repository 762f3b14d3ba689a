// Buffer allocation that fails with an error a user can act on, not an assertion: a model
// whose activations need more memory than the machine has is bad input, not a bug.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "engine/support/format_bytes.h"

namespace graft::eval {

/// Thrown when a buffer cannot be allocated. A std::bad_alloc, so code that only knows the
/// standard exception still treats it as out-of-memory; what() says what and how much.
class AllocationError : public std::bad_alloc {
 public:
  explicit AllocationError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

namespace detail {
/// The buffer, or nullptr with `why` set (larger than the machine's memory, or refused).
void* allocate_raw(size_t bytes, size_t alignment, bool zero_fill, std::string* why);
[[noreturn]] void throw_allocation_error(size_t bytes, const std::string& what,
                                         const std::string& why);
}  // namespace detail

/// `bytes` bytes aligned to `alignment` (a power of two; buffers of at most 1 KiB only to
/// malloc's 16 bytes), zero-filled if `zero_fill`, freed with the last reference. Requests
/// larger than the machine's physical memory are refused up front: with overcommit they would
/// "succeed" and the process would be killed later while touching them. Throws
/// AllocationError naming what the buffer is for, `describe()` ("the activations (memory
/// arena)", "a tensor of float32[8, 3]"), which is called only then: tensors are allocated on
/// hot paths (constant folding), where formatting their type every time would cost more than
/// the arithmetic.
template <typename Describe>
std::shared_ptr<void> allocate_buffer(size_t bytes, size_t alignment, bool zero_fill,
                                      const Describe& describe) {
  std::string why;
  void* p = detail::allocate_raw(bytes, alignment, zero_fill, &why);
  if (p == nullptr) detail::throw_allocation_error(bytes, describe(), why);
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

/// Many small buffers carved out of 2 MiB chunks. For the constant folder: rewriting a large
/// graph creates one small weight per fold, and an aligned malloc each (plus a shared_ptr
/// control block) scattered them over the heap with malloc's headers and padding in between.
/// A buffer's owner shares its chunk's reference count (no allocation per buffer), so a chunk
/// is released once all its buffers are (kept as a spare for the next arena, two at most in
/// the process, or freed): the arena suits buffers that mostly live about as long as each
/// other. Not thread-safe.
class BufferArena {
 public:
  /// Like allocate_buffer(bytes, 64, false, describe); requests above a quarter of a chunk
  /// get a buffer of their own.
  template <typename Describe>
  std::shared_ptr<void> allocate(size_t bytes, const Describe& describe) {
    // Compared before rounding, which could wrap for a size near SIZE_MAX.
    if (bytes > kChunkBytes / 4) return allocate_buffer(bytes, kAlignment, false, describe);
    // A zero-byte request still takes a slot, so that every buffer has its own address.
    const size_t take = std::max(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (chunk_ == nullptr || used_ + take > kChunkBytes) {
      std::string why;
      chunk_ = new_chunk(&why);
      if (chunk_ == nullptr) detail::throw_allocation_error(bytes, describe(), why);
      used_ = 0;
    }
    void* p = static_cast<std::byte*>(chunk_.get()) + used_;
    used_ += take;
    return std::shared_ptr<void>(chunk_, p);  // shares the chunk's count
  }

  /// How many released chunks wait for the next arena now (see above; tests).
  static size_t spare_chunk_count();
  static constexpr size_t kChunkBytes = size_t{2} << 20;

 private:
  static constexpr size_t kAlignment = 64;
  static std::shared_ptr<void> new_chunk(std::string* why);

  std::shared_ptr<void> chunk_;
  size_t used_ = 0;
};

using graft::format_bytes;  // sizes in messages

}  // namespace graft::eval
