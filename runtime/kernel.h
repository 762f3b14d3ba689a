// The kernel interface between the compiler (runtime/compiler.cpp) and the op families in
// runtime/kernels/. A KernelBuilder sees one node with concrete operand types and the layouts
// their producers deliver, and returns a KernelPlan: the layout it wants for each operand, the
// layout of its result, and a Kernel that owns its primitives and pre-reordered weights. After
// memory planning the compiler binds the kernel to fixed memories once; run() then only calls
// execute(). Internal to graft_runtime.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/support/diagnostics.h"
#include "runtime/dnnl_util.h"
#include "runtime/executable.h"

namespace graft::runtime {

/// The memories a kernel runs on, fixed after memory planning.
struct KernelMemories {
  std::vector<dnnl::memory> srcs;  // one per operand; empty where the plan asked for none
  dnnl::memory dst;
  void* scratchpad = nullptr;  // shared by all kernels (they run one at a time)
};

/// Thrown by a kernel's execute() for bad input data found at run time (an embedding index out
/// of range): Executable::run reports it as an error of the run, naming the node.
class KernelRunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  /// Called once, after memory planning.
  virtual void bind(const KernelMemories& mems) = 0;
  virtual void execute(dnnl::stream& stream) = 0;
};

/// Where a primitive argument comes from when the kernel is bound.
struct ArgSource {
  enum class Kind { kSrc, kDst, kScratchpad, kOwned } kind = Kind::kSrc;
  int index = 0;        // operand index for kSrc
  dnnl::memory owned;   // kOwned: weights reordered at compile time, or a small constant
  std::shared_ptr<void> owned_bytes;  // kOwned: the bytes `owned` is on, when graft allocated them
  md_t md;              // kSrc/kDst: the descriptor the primitive expects if it differs from
                        // the bound memory's (the same bytes seen differently: a 2-d view of
                        // a plain tensor, a permuted view for a transpose); kScratchpad: the
                        // scratchpad descriptor
  static ArgSource src(int i, md_t view = {}) { return {Kind::kSrc, i, {}, {}, std::move(view)}; }
  static ArgSource dst(md_t view = {}) { return {Kind::kDst, 0, {}, {}, std::move(view)}; }
  static ArgSource scratchpad(md_t md) { return {Kind::kScratchpad, 0, {}, {}, std::move(md)}; }
  static ArgSource own(dnnl::memory m) { return {Kind::kOwned, 0, std::move(m), {}, {}}; }
  static ArgSource own(OwnedMemory m) {
    return {Kind::kOwned, 0, std::move(m.memory), std::move(m.bytes), {}};
  }
};

/// One or more oneDNN primitives executed in order with fixed arguments.
class PrimitiveKernel : public Kernel {
 public:
  void add(dnnl::primitive prim, std::vector<std::pair<int, ArgSource>> args);
  void bind(const KernelMemories& mems) override;
  void execute(dnnl::stream& stream) override;

 private:
  struct Call {
    dnnl::primitive prim;
    std::vector<std::pair<int, ArgSource>> args;
    std::unordered_map<int, dnnl::memory> bound;
  };
  /// A view memory and the memory whose handle it follows. Input and output handles change
  /// per run (set by Executable::run), so views are re-pointed before each execution; that
  /// is a pointer compare per view, no allocation.
  struct View {
    dnnl::memory view, base;
  };
  dnnl::memory make_view(const dnnl::memory& base, const md_t& md);
  std::vector<Call> calls_;
  std::vector<View> views_;
};

/// A plain-loop kernel (ops oneDNN has no primitive for). The function receives the bound
/// memories and reads their data handles at run time (input handles change per run).
class LoopKernel : public Kernel {
 public:
  explicit LoopKernel(std::function<void(const KernelMemories&)> fn) : fn_(std::move(fn)) {}
  void bind(const KernelMemories& mems) override { mems_ = mems; }
  void execute(dnnl::stream&) override { fn_(mems_); }

 private:
  std::function<void(const KernelMemories&)> fn_;
  KernelMemories mems_;
};

/// One operand of the node being compiled.
struct Operand {
  enum class Kind { kNone, kTensor, kScalar };
  Kind kind = Kind::kNone;
  double scalar = 0;
  TensorType type;                          // tensor operands: the concrete type
  md_t md;                                  // tensor operands: the layout delivered
  md_t strided;  // a strided view (a transpose, a slice): its layout, for kernels that read
                 // strided data; `md` is then its dense copy, which the others get
  const ConstantTensor* constant = nullptr; // set when the producer is a get_attr node
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_none() const { return kind == Kind::kNone; }
  const Shape& shape() const { return type.shape; }
};

/// What a builder returns for one node.
struct KernelPlan {
  enum class Output {
    kNew,    // the kernel writes a fresh value of layout dst_md
    kAlias,  // the result is operand 0 itself (dropout, clone): no kernel, no copy
    kView,   // the result is operand 0's bytes seen as dst_md, view_offset bytes in (a reshape,
             // a transpose or slice of plain or strided data: runtime/strided_view.h)
  };
  Output output = Output::kNew;
  std::vector<md_t> src_mds;  // per operand: the layout wanted; a zero md = not read at run time
  md_t dst_md;
  std::unique_ptr<Kernel> kernel;
  int inplace_src = -1;     // dst may take this operand's buffer if it dies here (same layout)
  int accumulate_src = -1;  // dst must hold this operand before the kernel runs (sum post-op)
  size_t view_offset = 0;   // kView: where the result starts in operand 0's bytes
  size_t scratchpad_bytes = 0;
  size_t weight_bytes = 0;  // bytes the kernel owns (reordered weights)
  std::string impl;         // implementation name for dumps: "brg:avx512_core", "loop"
};

/// Everything a builder may look at, plus attribute accessors that report a diagnostic
/// (instead of crashing) when the registry's schema lacks an attribute the kernel needs.
class KernelContext {
 public:
  KernelContext(const Node& node, std::vector<Operand> operands, TensorType out,
                bool allow_blocked, DiagnosticEngine& diags, const std::string& source)
      : node_(node), operands_(std::move(operands)), out_(std::move(out)),
        allow_blocked_(allow_blocked), diags_(diags), source_(source) {}

  const Node& node() const { return node_; }
  const std::string& op() const { return node_.target(); }
  /// The node's op family, whose builder this is; kNone for a node without a schema.
  OpFamily family() const { return node_.schema() ? node_.schema()->family : OpFamily::kNone; }
  const std::vector<Operand>& operands() const { return operands_; }
  const Operand& operand(size_t i) const;
  size_t num_operands() const { return operands_.size(); }
  const TensorType& out() const { return out_; }
  /// False when layouts must stay plain (CompileOptions::blocked_layouts off, or a retry
  /// after a primitive refused a blocked layout).
  bool allow_blocked() const { return allow_blocked_; }
  /// True if convolutions may use Winograd (CompileOptions::winograd).
  bool allow_winograd() const { return allow_winograd_; }
  void set_allow_winograd(bool on) { allow_winograd_ = on; }
  /// The channel block of the layout convolutions should share (16: aBcd16b), or 0 to let each
  /// convolution choose (format_tag::any). Set when Winograd layers, which only come in
  /// aBcd16b, make one graph-wide blocked layout pay off.
  int preferred_block() const { return preferred_block_; }
  void set_preferred_block(int block) { preferred_block_ = block; }
  /// Whether inner products may run in row blocks (CompileOptions::row_blocks).
  CompileOptions::RowBlocks row_blocks() const { return row_blocks_; }
  void set_row_blocks(CompileOptions::RowBlocks mode) { row_blocks_ = mode; }
  const dnnl::engine& engine() const { return cpu_engine(); }

  /// The layout operand `i` should be read in when the kernel accepts any layout: what the
  /// producer delivers if blocked layouts are allowed, plain otherwise.
  md_t pass_through_md(size_t i) const;

  // ** attributes ** Each returns nullopt after reporting if the attribute is absent or of
  // another kind. A None value of a nullable attribute is returned as nullopt by the
  // *_or_none variants without a report.
  const AttrValue* attr(const std::string& name);
  std::optional<int64_t> int_attr(const std::string& name);
  std::optional<double> float_attr(const std::string& name);
  std::optional<bool> bool_attr(const std::string& name);
  std::optional<std::string> str_attr(const std::string& name);
  std::optional<std::vector<int64_t>> ints_attr(const std::string& name);
  /// For `int[]?`/`int?` attributes: an empty list for None; ints are made one-element lists.
  std::optional<std::vector<int64_t>> ints_or_none(const std::string& name);
  /// `float?`/`Scalar?` attributes: `fallback` for None.
  std::optional<double> float_or(const std::string& name, double fallback);
  bool has_attr(const std::string& name) const;

  /// Reports an error about this node and returns nullopt (for `return ctx.fail(...)`).
  std::nullopt_t fail(const std::string& message);
  /// Reports "not implemented" for a case this kernel does not cover.
  std::nullopt_t not_implemented(const std::string& what);
  /// The node's operand shapes for messages: "float32[1, 3, 8, 8], float32[4, 3, 3, 3]".
  std::string operand_types() const;

  /// A primitive attribute with the user-managed scratchpad every kernel uses.
  static dnnl::primitive_attr scratchpad_attr();

 private:
  const Node& node_;
  std::vector<Operand> operands_;
  TensorType out_;
  bool allow_blocked_;
  bool allow_winograd_ = false;
  int preferred_block_ = 0;
  CompileOptions::RowBlocks row_blocks_ = CompileOptions::RowBlocks::kNever;
  DiagnosticEngine& diags_;
  const std::string& source_;
};

using KernelBuilder = std::optional<KernelPlan> (*)(KernelContext& ctx);

/// The builder of `op`'s family (kernel_table.cpp), or nullptr.
KernelBuilder find_kernel(const OpSchema& op);

// ** shared helpers for builders **
/// Starts a plan with one zero md per operand.
KernelPlan make_plan(const KernelContext& ctx);
/// Raises the plan's scratchpad size to what `pd` needs.
void add_scratchpad(KernelPlan& plan, const dnnl::primitive_desc_base& pd);
/// Appends the DNNL_ARG_SCRATCHPAD argument when `pd` needs a scratchpad.
void append_scratchpad_arg(std::vector<std::pair<int, ArgSource>>& args,
                           const dnnl::primitive_desc_base& pd);
/// Binds a parameter operand (weights, bias) of a primitive to `arg`: a constant is reordered
/// once, at compile time, from `given` into the layout `wanted` the primitive chose, and counted
/// as weight memory; a computed value is read from input `slot`, delivered in `wanted`.
void bind_parameter(const KernelContext& ctx, KernelPlan& plan,
                    std::vector<std::pair<int, ArgSource>>& args, int arg, const Operand& operand,
                    int slot, const md_t& given, const md_t& wanted);
/// The usual single-primitive kernel: `args` plus the scratchpad; records impl and scratchpad.
void set_single_primitive(KernelPlan& plan, const dnnl::primitive_desc_base& pd,
                          dnnl::primitive prim, std::vector<std::pair<int, ArgSource>> args,
                          const std::string& family);

}  // namespace graft::runtime
