// A fast 64-bit hash of file contents, for naming files after what they hold (not for
// security: it only has to tell two versions of one model's weights apart). It can be fed in
// pieces, so a file is named after its contents while it is being written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace graft {

/// Hashes bytes eight at a time (≈ memory bandwidth on weights of hundreds of MiB); the same
/// bytes give the same value on every run and machine of the same endianness, however they are
/// split into update() calls.
class ContentHasher {
 public:
  ContentHasher();
  void update(std::string_view bytes);
  /// The hash of everything passed to update() so far.
  uint64_t digest() const;

 private:
  static constexpr size_t kBlock = 32;  // four 8-byte lanes
  void mix_block(const char* p);

  uint64_t lane_[4];
  uint64_t total_ = 0;
  char pending_[kBlock];  // the start of a block that has not been completed yet
  size_t pending_size_ = 0;
};

/// ContentHasher's value of `bytes` in one piece.
uint64_t content_hash(std::string_view bytes);

/// The 16 lowercase hex digits of `hash`.
std::string hash_hex(uint64_t hash);

}  // namespace graft
