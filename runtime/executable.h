// The runtime's entry point: compile(graph, options) turns a graph into an Executable — every
// oneDNN primitive created, every weight reordered into its kernel's layout, every activation
// given a place in one preallocated arena — and Executable::run() then only executes. No
// oneDNN type appears here (graft_runtime links oneDNN privately).
//
//   runtime::CompileOptions options;
//   options.shapes.symbols["N"] = 8;
//   auto exe = runtime::compile(graph, options, diags);
//   auto outputs = exe->run({eval::Tensor::random({8, 3, 224, 224}, 1)}, diags);
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/support/diagnostics.h"
#include "eval/concretize.h"
#include "eval/tensor.h"
#include "runtime/memory_plan.h"

namespace graft::runtime {

struct CompileOptions {
  eval::ShapeBindings shapes;     // concrete input shapes (batch size) for symbolic dims
  bool blocked_layouts = true;    // let convolutions pick blocked layouts (false: plain only)
  bool in_place = true;           // let eltwise / sum post-ops write into a dying input
  bool reuse_memory = true;       // share arena bytes between values with disjoint lifetimes
  /// Let 3x3 stride-1 convolutions use oneDNN's Winograd kernels where they exist: faster,
  /// with slightly different rounding (relative error ~1e-6 per layer instead of
  /// ~1e-7). Off gives the direct algorithm PyTorch uses, bit-for-bit closer to it.
  bool winograd = true;
  /// Compute ops whose inputs are all constants once, at compile time, with the reference
  /// kernels (a causal mask sliced from a buffer, position ids and their embedding); off, every
  /// op runs its kernel on each run.
  bool fold_constants = true;
  /// Where an inner product may run as one single-threaded primitive per thread on a block of
  /// its rows (runtime/kernels/row_blocks.h): where measuring both ways on this host shows it
  /// faster, never, or always (tests).
  enum class RowBlocks { kMeasure, kNever, kAlways };
  RowBlocks row_blocks = RowBlocks::kMeasure;
  std::string source_name;        // the model file, for diagnostics
};

struct TensorInfo {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;
};

/// One executed step: a node's kernel, or a reorder/copy the compiler inserted.
struct StepInfo {
  std::string name;    // node name; "<node>.reorder" / "<output>.copy" for inserted steps
  std::string op;      // the node's op, or "reorder"
  std::string impl;    // oneDNN implementation ("conv brg:avx512_core") or "fallback loop"
  std::string layout;  // the result's layout ("aBcd16b")
  bool in_place = false;  // writes into the buffer of an input that dies here
};

class Executable {
 public:
  ~Executable();
  // Owns primitives, weights and the activation arena; copying would duplicate all of them.
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;

  /// Runs on `inputs` (one per model input, in placeholder order, with the compiled shapes)
  /// and returns freshly allocated outputs. Returns nullopt after reporting a count, dtype or
  /// shape mismatch. Not reentrant: one run at a time per Executable (the arena is shared).
  [[nodiscard]] std::optional<std::vector<eval::Tensor>> run(
      const std::vector<eval::Tensor>& inputs, DiagnosticEngine& diags);
  /// Like run(), writing into caller-provided outputs of the right shapes (no allocation).
  /// With `step_ms`, also records each step's wall time (one entry per steps() element).
  [[nodiscard]] bool run_into(const std::vector<eval::Tensor>& inputs,
                              const std::vector<eval::Tensor>& outputs, DiagnosticEngine& diags,
                              std::vector<double>* step_ms = nullptr);

  const std::vector<StepInfo>& steps() const;
  /// Bytes of the activation arena (the peak activation memory; excludes weights).
  size_t peak_activation_bytes() const;
  size_t weight_bytes() const;      // reordered weights the kernels own
  size_t scratchpad_bytes() const;  // one scratchpad shared by all primitives
  const MemoryPlan& memory_plan() const;
  /// The arena buffers the plan placed (for checking the plan: check_memory_plan()).
  const std::vector<BufferRequest>& buffer_requests() const;
  /// One line per step (name, op, implementation, layouts, in-place) and the memory summary.
  std::string dump() const;

  struct Impl;

 private:
  friend std::unique_ptr<Executable> make_executable(std::unique_ptr<Impl> impl);
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Compiles `graph` for the shapes in `options`. Returns nullptr after reporting to `diags`
/// when a shape cannot be made concrete, an op has no kernel ("not implemented"), or oneDNN
/// rejects a primitive (the diagnostic names the node, op and shapes).
[[nodiscard]] std::unique_ptr<Executable> compile(const Graph& graph,
                                                  const CompileOptions& options,
                                                  DiagnosticEngine& diags);

/// True if the runtime has a kernel builder for `op`'s family.
bool has_runtime_kernel(const OpSchema& op);

/// The most threads the runtime uses. libgomp starts a team with an array on the calling
/// thread's stack (100 000 threads overflow it), and each thread takes memory mappings of its
/// own (16 384 exhaust Linux's default limit of 65 530 per process).
inline constexpr int kMaxThreads = 1024;

/// Sets the number of threads oneDNN's OpenMP runtime uses (before compile(), since kernels
/// choose their blocking for the thread count they see). 0 or less keeps the default (the
/// cores, or OMP_NUM_THREADS); either way at most kMaxThreads.
void set_num_threads(int threads);
int max_threads();

}  // namespace graft::runtime
