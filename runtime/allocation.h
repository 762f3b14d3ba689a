// Buffer allocation that fails with an error a user can act on, not an assertion: a model
// whose activations need more memory than the machine has is bad input, not a bug.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <string>
#include <string_view>

namespace graft::runtime {

/// Thrown when a buffer cannot be allocated. A std::bad_alloc, so code that only knows the
/// standard exception still treats it as out-of-memory; what() says what and how much.
class AllocationError : public std::bad_alloc {
 public:
  explicit AllocationError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

/// `bytes` bytes aligned to `alignment` (a power of two; buffers of at most 1 KiB only to
/// malloc's 16 bytes), zero-filled if `zero_fill`, freed with the last reference. Requests larger than the machine's physical memory are refused up front: with
/// overcommit they would "succeed" and the process would be killed later while touching them.
/// Throws AllocationError naming `what` ("the activation arena", "tensor 'x'").
std::shared_ptr<void> allocate_buffer(size_t bytes, size_t alignment, std::string_view what,
                                      bool zero_fill);

/// "1.5 GiB", "512 B": sizes in messages.
std::string format_bytes(double bytes);

}  // namespace graft::runtime
