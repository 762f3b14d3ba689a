// ChunkPool<T>: objects of one type allocated in chunks, at addresses stable for the pool's
// lifetime, released ones reused.
//
// A Graph's nodes live here rather than in one allocation each: a million-node graph then holds
// its nodes contiguously in creation (for a loaded model: graph) order, so the passes that
// visit every node in order — labelling, printing, saving — walk memory the hardware
// prefetches, and creating a node costs no malloc.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace graft {

template <typename T>
class ChunkPool {
 public:
  /// A default-constructed T: a fresh one, or a released one.
  T* acquire() {
    if (!free_.empty()) {
      T* p = free_.back();
      free_.pop_back();
      return p;
    }
    if (chunks_.empty() || used_ == capacity_) {
      // Small graphs (tests, rule patterns) stay small; big ones get big chunks.
      capacity_ = std::min(kMaxChunk, kFirstChunk << std::min<size_t>(chunks_.size(), 16));
      chunks_.push_back(std::make_unique<T[]>(capacity_));
      used_ = 0;
    }
    return &chunks_.back()[used_++];
  }

  /// Takes `p` (from acquire()) back for reuse, resetting it to T{} now so that whatever it
  /// owns is freed now.
  void release(T* p) {
    *p = T{};
    free_.push_back(p);
  }

 private:
  static constexpr size_t kFirstChunk = 16;
  static constexpr size_t kMaxChunk = 4096;

  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t capacity_ = 0;  // of the last chunk
  size_t used_ = 0;      // of the last chunk
  std::vector<T*> free_;
};

}  // namespace graft
