// StableVector<T>: an append-only sequence whose elements never move — chunks of 2^kShift
// elements, indexed with a shift and a mask.
//
// For tables that hand out indexes and pointers to their entries and are read by index on hot
// paths (ConstantStore: a get_attr node remembers its constant's slot). std::deque keeps
// addresses too, but its blocks hold 512 bytes (four 120-byte entries, so an allocation every
// fourth append) and indexing it divides.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace graft {

template <typename T, size_t kShift = 8>
class StableVector {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return chunks_[i >> kShift][i & kMask]; }
  const T& operator[](size_t i) const { return chunks_[i >> kShift][i & kMask]; }

  /// Appends a default-constructed T and returns it.
  T& emplace_back() {
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<T[]>(kChunk));
    return (*this)[size_++];  // default-constructed with its chunk, never used before
  }

  /// Drops every element (and the chunks).
  void clear() {
    chunks_.clear();
    size_ = 0;
  }

 private:
  static constexpr size_t kChunk = size_t{1} << kShift;
  static constexpr size_t kMask = kChunk - 1;

  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace graft
