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
#include <new>
#include <vector>

#include "engine/support/prefault.h"

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
      const size_t capacity =
          std::min(kMaxChunk, kFirstChunk << std::min<size_t>(chunks_.size(), 16));
      chunks_.reserve(chunks_.size() + 1);
      Chunk chunk = new_chunk(capacity);
      // Only now that nothing can throw: a failed allocation or constructor leaves the pool
      // as it was (the last chunk and its count), rather than sized for a chunk it lacks.
      chunks_.push_back(std::move(chunk));
      capacity_ = capacity;
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
  /// Destroys a chunk's `n` objects and frees its storage.
  struct ChunkDeleter {
    size_t n = 0;
    void operator()(T* items) const {
      std::destroy_n(items, n);
      ::operator delete(items);
    }
  };
  using Chunk = std::unique_ptr<T[], ChunkDeleter>;

  /// `n` value-initialised Ts. The storage is faulted in before the constructors write it
  /// end to end (populate_for_writing): a big graph's node chunks are fresh pages.
  static Chunk new_chunk(size_t n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    T* items = static_cast<T*>(::operator new(n * sizeof(T)));
    if (n * sizeof(T) >= kPopulateBytes) populate_for_writing(items, n * sizeof(T));
    size_t made = 0;
    try {
      for (; made < n; ++made) ::new (static_cast<void*>(items + made)) T();
    } catch (...) {
      ChunkDeleter{made}(items);
      throw;
    }
    return Chunk(items, ChunkDeleter{n});
  }

  static constexpr size_t kPopulateBytes = size_t{256} << 10;
  static constexpr size_t kFirstChunk = 16;
  static constexpr size_t kMaxChunk = 4096;

  std::vector<Chunk> chunks_;
  size_t capacity_ = 0;  // of the last chunk
  size_t used_ = 0;      // of the last chunk
  std::vector<T*> free_;
};

}  // namespace graft
