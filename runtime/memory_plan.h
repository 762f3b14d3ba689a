// Memory planning for activations: given each buffer's size and lifetime (the first and last
// step of the schedule that touch it), assign offsets in one arena so that buffers whose
// lifetimes overlap never overlap in memory, and buffers whose lifetimes do not may share
// bytes. The runtime allocates the arena once at compile time; run() never allocates.
//
// In-place execution and views are decided by the caller (runtime/compiler.cpp) by giving
// two values one buffer; this module only sees buffers.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace graft::runtime {

/// One buffer to place. Steps are schedule positions; the range is inclusive.
struct BufferRequest {
  size_t bytes = 0;
  int first_step = 0;
  int last_step = 0;
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // one per request, aligned
  size_t arena_bytes = 0;       // the arena size: the peak activation memory actually used
  size_t naive_bytes = 0;       // the sum of all buffer sizes (what no reuse would cost)
  size_t live_peak_bytes = 0;   // max over steps of the bytes live at that step: a lower bound

  /// "arena 1.2 MB (naive 4.8 MB, lower bound 1.1 MB), 37 buffers"
  std::string summary() const;
};

/// Places `requests` with the greedy-by-size heuristic (largest first, best-fitting gap among
/// lifetime-overlapping buffers; Pisarchyk & Lee, "Efficient memory management for deep neural
/// net inference", 2020). With `reuse` false every buffer gets its own bytes.
MemoryPlan plan_memory(const std::vector<BufferRequest>& requests, bool reuse = true,
                       size_t alignment = 64);

/// Returns "" if `plan` is valid for `requests` (every buffer inside the arena and aligned; no
/// two buffers with overlapping lifetimes share a byte), otherwise a description of the first
/// violation. Used by tests and, in debug builds, after every plan.
std::string check_memory_plan(const std::vector<BufferRequest>& requests, const MemoryPlan& plan,
                              size_t alignment = 64);

}  // namespace graft::runtime
