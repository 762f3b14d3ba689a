// The Executable's private state, shared by the compiler (which fills it) and executable.cpp
// (which runs it). Internal to graft_runtime.
#pragma once

#include <memory>
#include <vector>

#include "runtime/executable.h"
#include "runtime/kernel.h"

namespace graft::runtime {

struct Executable::Impl {
  std::unique_ptr<Graph> graph;  // the concrete-shaped clone; fallback kernels read its nodes
  std::vector<std::unique_ptr<Kernel>> kernels;  // one per step
  std::vector<StepInfo> steps;
  /// A memory on a model input's or output's bytes, `offset` bytes in (a slice's view).
  struct IoMemory {
    dnnl::memory memory;
    size_t offset = 0;
  };
  std::vector<std::vector<IoMemory>> input_memories;   // per input: memories on its bytes
  std::vector<std::vector<IoMemory>> output_memories;  // per output: likewise
  std::vector<TensorInfo> inputs, outputs;
  std::vector<OwnedMemory> owned;  // constants reordered at compile time
  std::shared_ptr<void> arena;
  std::shared_ptr<void> scratchpad;
  size_t scratchpad_bytes = 0;
  size_t weight_bytes = 0;
  std::vector<BufferRequest> requests;
  MemoryPlan plan;
  dnnl::stream stream;
};

std::unique_ptr<Executable> make_executable(std::unique_ptr<Executable::Impl> impl);

}  // namespace graft::runtime
