// compile(): Graph -> Executable. This file's external interface is just compile().
//
// First, ops whose inputs are all constants are computed once (eval/constant_nodes.h). Then the
// compiler walks the concrete-shaped graph in order and, for each live node, asks the
// node's kernel builder (runtime/kernels/) for a KernelPlan given the layouts its operands
// arrive in. That is the layout pass: convolutions pick blocked layouts (format_tag::any, or
// the graph-wide aBcd16b when the graph has Winograd layers, which only come in that
// layout); ops that accept any layout (eltwise, pooling, batch norm, binary, concat) keep
// what they are given; ops that need plain data ask for it. Wherever a value's layout
// differs from what a consumer asks for, the compiler inserts one reorder step (shared by all
// consumers wanting that layout), so reorders appear only at the borders of blocked regions.
// Plain-to-plain reshapes are free views of the same bytes, and so are transposes, slices and
// reshapes of plain data that can be described with strides (runtime/strided_view.h): such a
// value is its source's buffer at an offset, in a strided layout; kernels that read strided
// data take it as is, others get one dense copy. Constants that need another layout are
// reordered here, once.
//
// Then memory: every value lives in a buffer; views and aliases share their source's buffer.
// After lifetimes are known (first write, last read, in schedule order), in-place candidates
// (eltwise/binary/batch-norm on a dying input; a fused conv's residual for the sum post-op)
// take over their input's buffer, and runtime/memory_plan.cpp places the remaining arena
// buffers. Finally every value gets a dnnl::memory on its bytes and every kernel is bound to
// its memories; run() only executes.
#include <climits>
#include <set>
#include <cstdlib>
#include <cstring>

#include "engine/support/check.h"
#include "eval/allocation.h"
#include "eval/constant_nodes.h"
#include "runtime/executable_impl.h"
#include "runtime/kernels/families.h"
#include "runtime/strided_view.h"

namespace graft::runtime {

using eval::AllocationError;
using eval::allocate_buffer;
using eval::concretize_graph;

namespace {

/// The largest result folded at compile time: a constant lives as long as the executable,
/// where a computed value shares the arena.
constexpr size_t kMaxFoldedBytes = size_t{4} << 20;

struct Buffer {
  enum class Kind { kArena, kInput, kOutput, kConstant };
  Kind kind = Kind::kArena;
  size_t bytes = 0;
  int io_index = -1;             // kInput / kOutput: which model input or output
  void* data = nullptr;          // kConstant: the bytes (never written)
  int first = INT_MAX, last = -1;  // schedule positions of the first write and last read
  int parent = -1;               // set when an in-place step merged this buffer into another
};

struct Value {
  md_t md;
  int buffer = -1;
  size_t offset = 0;  // bytes from the buffer's start (a slice's view)
  bool strided_view = false;  // a view in a layout no kernel chose (Operand::strided)
  dnnl::memory mem;
};

struct Step {
  StepInfo info;
  std::unique_ptr<Kernel> kernel;
  std::vector<int> srcs;  // one value per operand; -1 where the kernel reads nothing
  int dst = -1;
  int inplace_src = -1;     // operand index (KernelPlan::inplace_src)
  int accumulate_src = -1;  // operand index (KernelPlan::accumulate_src)
  int prefill = -1;         // the step copying the residual into dst, for accumulate_src
  bool enabled = true;
};

class Compiler {
 public:
  Compiler(const CompileOptions& options, DiagnosticEngine& diags)
      : options_(options), diags_(diags) {}

  std::unique_ptr<Executable> run(const Graph& graph);

 private:
  bool fail(const std::string& message) {
    diags_.error(DiagLocation::in_file(options_.source_name), message);
    return false;
  }
  bool compile_node(const Node& node);
  std::optional<KernelPlan> build(KernelBuilder builder, const Node& node,
                                  std::vector<Operand> operands);
  std::optional<Operand> operand_of(const Node& node, const Input& input);
  int value_of(const Node& producer);
  int value_in(int v, const md_t& want, const std::string& consumer);
  /// Value `v` in layout `want` if it is already there or a copy in it exists, else -1.
  int existing_in(int v, const md_t& want) const;
  int new_buffer(Buffer b) {
    buffers_.push_back(b);
    return static_cast<int>(buffers_.size()) - 1;
  }
  int new_value(const md_t& md, int buffer, size_t offset = 0) {
    values_.push_back({md, buffer, offset, false, {}});
    layouts_.emplace_back();
    return static_cast<int>(values_.size()) - 1;
  }
  int arena_value(const md_t& md) {
    return new_value(md, new_buffer({Buffer::Kind::kArena, md.get_size()}));
  }
  int add_reorder(int src, int dst, std::string name);
  int root(int b) const {
    while (buffers_[static_cast<size_t>(b)].parent >= 0) b = buffers_[static_cast<size_t>(b)].parent;
    return b;
  }
  Buffer& root_buffer(int v) { return buffers_[static_cast<size_t>(root(values_[static_cast<size_t>(v)].buffer))]; }
  void compute_lifetimes();
  void apply_in_place();
  bool can_share(const Step& step, int s, int operand, bool allow_same_value);
  void plan_and_bind(Executable::Impl& impl);

  const CompileOptions& options_;
  DiagnosticEngine& diags_;
  const Graph* graph_ = nullptr;
  std::vector<Buffer> buffers_;
  std::vector<Value> values_;
  std::vector<std::vector<std::pair<md_t, int>>> layouts_;  // per value: its other layouts
  std::vector<Step> steps_;
  std::vector<int> node_values_;  // per node id; -1 until computed
  std::vector<OwnedMemory> owned_;
  size_t weight_bytes_ = 0;
  size_t scratchpad_bytes_ = 0;
  int preferred_block_ = 0;  // KernelContext::preferred_block for every convolution
  std::set<std::string> runtime_constants_;  // constants read at run time (not pre-reordered)
};

std::optional<Operand> Compiler::operand_of(const Node& node, const Input& input) {
  Operand o;
  if (input.is_scalar()) {
    o.kind = Operand::Kind::kScalar;
    o.scalar = input.scalar.value;
    return o;
  }
  if (!input.is_node()) return o;
  const Node& p = *input.node;
  const OpFamily family = node.schema() ? node.schema()->family : OpFamily::kNone;
  if (!p.type() || (p.type()->dtype != DType::kFloat32 && !family_takes_any_dtype(family))) {
    fail("node '" + node.name() + "' (" + node.target() + "): not implemented in the runtime: " +
         "operand '" + p.name() + "' of dtype " +
         (p.type() ? dtype_name(p.type()->dtype) : "unknown") + " (this op computes in " +
         "float32 only)");
    return std::nullopt;
  }
  o.kind = Operand::Kind::kTensor;
  o.type = *p.type();
  if (p.is(NodeKind::kGetAttr)) {
    o.constant = graph_->constant(p);
    o.md = plain_md(o.type.shape, o.type.dtype);
  } else {
    const Value& value = values_[static_cast<size_t>(node_values_[p.id()])];
    // A strided view is offered as such to kernels that read strided data; to the others it
    // looks like the dense value they get through a copy.
    if (value.strided_view) {
      o.md = plain_like(value.md);
      o.strided = value.md;
    } else {
      o.md = value.md;
    }
  }
  return o;
}

std::optional<KernelPlan> Compiler::build(KernelBuilder builder, const Node& node,
                                          std::vector<Operand> operands) {
  bool any_blocked = false;
  for (const Operand& o : operands) any_blocked |= o.is_tensor() && !is_plain(o.md);
  std::string what;
  // First with the layouts as they come; if oneDNN refuses (some primitives reject some
  // blocked layouts), once more with everything plain before giving up.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool allow = options_.blocked_layouts && attempt == 0;
    if (attempt == 1) {
      if (!options_.blocked_layouts && !any_blocked) break;
      for (Operand& o : operands) {
        if (o.is_tensor()) o.md = plain_md(o.shape(), o.type.dtype);
      }
    }
    KernelContext ctx(node, operands, *node.type(), allow, diags_, options_.source_name);
    ctx.set_allow_winograd(allow && options_.winograd);
    ctx.set_preferred_block(allow ? preferred_block_ : 0);
    ctx.set_row_blocks(options_.row_blocks);
    try {
      return builder(ctx);
    } catch (const dnnl::error& e) {
      what = std::string(e.what()) + " (oneDNN status " + std::to_string(e.status) + ")";
    }
  }
  KernelContext ctx(node, operands, *node.type(), false, diags_, options_.source_name);
  return ctx.fail("oneDNN rejected the primitive: " + what + "; operands: " +
                  ctx.operand_types() + "; result " + type_to_string(*node.type()));
}

int Compiler::value_of(const Node& producer) {
  int& v = node_values_[producer.id()];
  if (v >= 0) return v;
  // Constants become values on first use at run time (a kernel reading them as data).
  GRAFT_CHECK(producer.is(NodeKind::kGetAttr)) << "no value for " << producer.name();
  const ConstantTensor* c = graph_->constant(producer);
  runtime_constants_.insert(producer.target());
  Buffer b{Buffer::Kind::kConstant, c->nbytes, -1, const_cast<std::byte*>(c->data)};
  v = new_value(plain_md(c->shape(), c->dtype()), new_buffer(b));
  return v;
}

int Compiler::add_reorder(int src, int dst, std::string name) {
  const md_t& from = values_[static_cast<size_t>(src)].md;
  const md_t& to = values_[static_cast<size_t>(dst)].md;
  dnnl::reorder::primitive_desc pd(cpu_engine(), from, cpu_engine(), to,
                                   KernelContext::scratchpad_attr());
  scratchpad_bytes_ = std::max(scratchpad_bytes_, pd.scratchpad_desc().get_size());
  std::vector<std::pair<int, ArgSource>> args = {{DNNL_ARG_FROM, ArgSource::src(0)},
                                                 {DNNL_ARG_TO, ArgSource::dst()}};
  append_scratchpad_arg(args, pd);
  auto kernel = std::make_unique<PrimitiveKernel>();
  kernel->add(dnnl::reorder(pd), std::move(args));
  Step step;
  step.info = {std::move(name), "reorder", "reorder " + impl_name(pd), layout_name(to), false};
  step.kernel = std::move(kernel);
  step.srcs = {src};
  step.dst = dst;
  steps_.push_back(std::move(step));
  return static_cast<int>(steps_.size()) - 1;
}

int Compiler::existing_in(int v, const md_t& want) const {
  if (values_[static_cast<size_t>(v)].md == want) return v;
  for (const auto& [md, other] : layouts_[static_cast<size_t>(v)]) {
    if (md == want) return other;
  }
  return -1;
}

int Compiler::value_in(int v, const md_t& want, const std::string& consumer) {
  if (int existing = existing_in(v, want); existing >= 0) return existing;
  const md_t have = values_[static_cast<size_t>(v)].md;
  if (md_shape(have) != md_shape(want)) {
    // Other dims (a 2-d view for layer norm or linear): only plain data can be seen with
    // other dims, so go through the plain layout of the value's own dims first.
    GRAFT_CHECK(is_plain(want)) << consumer << ": a non-plain view with other dims";
    int plain = value_in(v, plain_like(have), consumer);
    if (plain != v) return value_in(plain, want, consumer);
  }
  int result;
  const Value& value = values_[static_cast<size_t>(v)];
  const Buffer& b = buffers_[static_cast<size_t>(root(value.buffer))];
  if (is_plain(have) && is_plain(want) && have.get_size() == want.get_size()) {
    result = new_value(want, value.buffer, value.offset);  // same bytes, new dims
  } else if (b.kind == Buffer::Kind::kConstant) {
    // A constant in another layout: reorder once, now, and keep the result.
    ConstantTensor c;
    c.data = static_cast<const std::byte*>(b.data) + value.offset;
    OwnedMemory m = reorder_constant(c, have, want, cpu_engine());
    void* data = m.memory.get_data_handle();
    owned_.push_back(std::move(m));
    weight_bytes_ += want.get_size();
    result = new_value(want, new_buffer({Buffer::Kind::kConstant, want.get_size(), -1, data}));
  } else {
    result = arena_value(want);
    add_reorder(v, result, consumer + ".reorder");
  }
  layouts_[static_cast<size_t>(v)].push_back({want, result});
  return result;
}

bool Compiler::compile_node(const Node& node) {
  const std::string prefix = "node '" + node.name() + "' (" + node.target() + "): ";
  KernelBuilder builder = node.schema() ? find_kernel(*node.schema()) : nullptr;
  if (builder == nullptr) {
    return fail(prefix + "not implemented in the runtime: no kernel for op '" + node.target() + "'");
  }
  if (node.type()->dtype != DType::kFloat32 && !family_takes_any_dtype(node.schema()->family)) {
    return fail(prefix + "not implemented in the runtime: a result of dtype " +
                dtype_name(node.type()->dtype) + " (this op computes in float32 only)");
  }
  std::vector<Operand> operands;
  for (const Input& input : node.inputs()) {
    std::optional<Operand> o = operand_of(node, input);
    if (!o) return false;
    operands.push_back(std::move(*o));
  }
  std::optional<KernelPlan> plan = build(builder, node, operands);
  if (!plan) return false;
  weight_bytes_ += plan->weight_bytes;
  scratchpad_bytes_ = std::max(scratchpad_bytes_, plan->scratchpad_bytes);

  std::vector<int> srcs(operands.size(), -1);
  for (size_t i = 0; i < operands.size(); ++i) {
    if (plan->src_mds[i].is_zero()) continue;
    GRAFT_CHECK(node.input(i).is_node()) << node.name() << ": kernel asked for a non-tensor";
    srcs[i] = value_in(value_of(*node.input(i).node), plan->src_mds[i], node.name());
  }
  switch (plan->output) {
    case KernelPlan::Output::kAlias:
      node_values_[node.id()] = srcs[0];
      return true;
    case KernelPlan::Output::kView: {
      const Value& src = values_[static_cast<size_t>(srcs[0])];
      if (plan->view_offset == 0 && is_plain(src.md) && is_plain(plan->dst_md) &&
          src.md.get_size() == plan->dst_md.get_size()) {
        node_values_[node.id()] = value_in(srcs[0], plan->dst_md, node.name());
      } else {  // a strided view, or part of the bytes (a slice)
        const int view = new_value(plan->dst_md, src.buffer, src.offset + plan->view_offset);
        values_[static_cast<size_t>(view)].strided_view = !is_plain(plan->dst_md);
        node_values_[node.id()] = view;
      }
      return true;
    }
    case KernelPlan::Output::kNew:
      break;
  }
  const int dst = arena_value(plan->dst_md);
  Step step;
  if (plan->accumulate_src >= 0) {
    // A residual in another layout than dst that an earlier consumer already had reordered
    // into dst's layout (ResNet's first block: the pool's nhwc result, reordered into aBcd16b
    // for the block's first convolution) is summed from that copy: a plain copy, or none at
    // all when the copy dies here, instead of a second reorder.
    int& residual = srcs[static_cast<size_t>(plan->accumulate_src)];
    if (int copy = existing_in(residual, plan->dst_md); copy >= 0) residual = copy;
    step.prefill = add_reorder(residual, dst, node.name() + ".residual");
  }
  step.info = {node.name(), node.target(), plan->impl, layout_name(plan->dst_md), false};
  step.kernel = std::move(plan->kernel);
  step.srcs = std::move(srcs);
  step.dst = dst;
  step.inplace_src = plan->inplace_src;
  step.accumulate_src = plan->accumulate_src;
  steps_.push_back(std::move(step));
  node_values_[node.id()] = dst;
  return true;
}

void Compiler::compute_lifetimes() {
  for (size_t s = 0; s < steps_.size(); ++s) {
    const int pos = static_cast<int>(s);
    for (int v : steps_[s].srcs) {
      if (v < 0) continue;
      Buffer& b = root_buffer(v);
      b.last = std::max(b.last, pos);
    }
    Buffer& d = root_buffer(steps_[s].dst);
    d.first = std::min(d.first, pos);
    d.last = std::max(d.last, pos);
  }
}

bool Compiler::can_share(const Step& step, int s, int operand, bool allow_same_value) {
  const int v = step.srcs[static_cast<size_t>(operand)];
  if (v < 0) return false;
  const int b = root(values_[static_cast<size_t>(v)].buffer);
  const int d = root(values_[static_cast<size_t>(step.dst)].buffer);
  const Buffer& src = buffers_[static_cast<size_t>(b)];
  if (src.kind != Buffer::Kind::kArena || b == d || src.last != s) return false;
  // A view at an offset would be written from the buffer's start.
  if (values_[static_cast<size_t>(v)].offset != 0) return false;
  const md_t& a = values_[static_cast<size_t>(v)].md;
  const md_t& c = values_[static_cast<size_t>(step.dst)].md;
  bool same_layout = a == c || (is_plain(a) && is_plain(c) && a.get_size() == c.get_size());
  if (!same_layout || buffers_[static_cast<size_t>(d)].bytes > src.bytes) return false;
  // Another operand on the same bytes would be overwritten while it is read (a conv whose
  // input is also its residual), unless it is the very same value read elementwise.
  for (size_t j = 0; j < step.srcs.size(); ++j) {
    int w = step.srcs[j];
    if (static_cast<int>(j) == operand || w < 0) continue;
    if (root(values_[static_cast<size_t>(w)].buffer) == b && !(allow_same_value && w == v)) {
      return false;
    }
  }
  return true;
}

void Compiler::apply_in_place() {
  if (!options_.in_place) return;
  // In schedule order, so a merged buffer's extended lifetime is seen by later steps.
  for (size_t s = 0; s < steps_.size(); ++s) {
    Step& step = steps_[s];
    const bool accumulate = step.accumulate_src >= 0;
    const int operand = accumulate ? step.accumulate_src : step.inplace_src;
    if (operand < 0 || !can_share(step, static_cast<int>(s), operand, !accumulate)) continue;
    int b = root(values_[static_cast<size_t>(step.srcs[static_cast<size_t>(operand)])].buffer);
    int d = root(values_[static_cast<size_t>(step.dst)].buffer);
    Buffer& src = buffers_[static_cast<size_t>(b)];
    Buffer& dst = buffers_[static_cast<size_t>(d)];
    dst.parent = b;
    src.first = std::min(src.first, dst.first);
    src.last = std::max(src.last, dst.last);
    step.info.in_place = true;
    // The residual already lies in dst's bytes: the prefill copy is not needed.
    if (accumulate) steps_[static_cast<size_t>(step.prefill)].enabled = false;
  }
}

void Compiler::plan_and_bind(Executable::Impl& impl) {
  std::vector<int> request_of(buffers_.size(), -1);
  for (size_t b = 0; b < buffers_.size(); ++b) {
    const Buffer& buf = buffers_[b];
    if (buf.parent >= 0 || buf.kind != Buffer::Kind::kArena || buf.last < 0) continue;
    request_of[b] = static_cast<int>(impl.requests.size());
    impl.requests.push_back({buf.bytes, buf.first, buf.last});
  }
  impl.plan = plan_memory(impl.requests, options_.reuse_memory);
  GRAFT_DCHECK(check_memory_plan(impl.requests, impl.plan).empty())
      << check_memory_plan(impl.requests, impl.plan);
  // Page-aligned, plus a page of slack; not zero-filled: pages are touched when kernels run.
  auto alloc = [](size_t bytes, const char* what) {
    return allocate_buffer((bytes + 4095) / 4096 * 4096 + 4096, 4096, false,
                           [what] { return std::string(what); });
  };
  impl.arena = alloc(impl.plan.arena_bytes, "the activations (memory arena)");
  impl.scratchpad = alloc(scratchpad_bytes_, "the kernels' scratchpad");
  impl.scratchpad_bytes = scratchpad_bytes_;
  impl.weight_bytes = weight_bytes_;
  impl.owned = std::move(owned_);

  for (Value& v : values_) {
    const int b = root(v.buffer);
    const Buffer& buf = buffers_[static_cast<size_t>(b)];
    char* ptr = nullptr;
    if (buf.kind == Buffer::Kind::kArena) {
      if (request_of[static_cast<size_t>(b)] < 0) continue;  // never used
      ptr = static_cast<char*>(impl.arena.get()) +
            impl.plan.offsets[static_cast<size_t>(request_of[static_cast<size_t>(b)])] + v.offset;
    } else if (buf.kind == Buffer::Kind::kConstant) {
      ptr = static_cast<char*>(buf.data) + v.offset;
    }
    v.mem = dnnl::memory(v.md, cpu_engine(), ptr);
    if (buf.kind == Buffer::Kind::kInput) {
      impl.input_memories[static_cast<size_t>(buf.io_index)].push_back({v.mem, v.offset});
    }
    if (buf.kind == Buffer::Kind::kOutput) {
      impl.output_memories[static_cast<size_t>(buf.io_index)].push_back({v.mem, v.offset});
    }
  }
  for (Step& step : steps_) {
    if (!step.enabled) continue;
    KernelMemories mems;
    for (int v : step.srcs) mems.srcs.push_back(v >= 0 ? values_[static_cast<size_t>(v)].mem : dnnl::memory());
    mems.dst = values_[static_cast<size_t>(step.dst)].mem;
    mems.scratchpad = impl.scratchpad.get();
    step.kernel->bind(mems);
    impl.kernels.push_back(std::move(step.kernel));
    impl.steps.push_back(std::move(step.info));
  }
}

std::unique_ptr<Executable> Compiler::run(const Graph& source) {
  auto impl = std::make_unique<Executable::Impl>();
  impl->graph = concretize_graph(source, options_.shapes, options_.source_name, diags_);
  if (!impl->graph) return nullptr;
  if (options_.fold_constants) eval::fold_constant_nodes(*impl->graph, kMaxFoldedBytes);
  const Graph& graph = *impl->graph;
  graph_ = &graph;
  node_values_.assign(graph.id_bound(), -1);
  if (graph.output() == nullptr) {
    fail("the graph has no output node");
    return nullptr;
  }
  // Live nodes: those the output depends on (dead branches are not compiled or run).
  std::vector<bool> live(graph.id_bound(), false);
  std::vector<const Node*> stack = {graph.output()};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (live[n->id()]) continue;
    live[n->id()] = true;
    for (const Input& in : n->inputs()) {
      if (in.is_node()) stack.push_back(in.node);
    }
  }
  // Winograd layers only come in aBcd16b; when a graph has any, every convolution is asked
  // for that layout first, so the whole network stays in it (ResNet's downsampling and 1x1
  // convolutions would otherwise pick nhwc, and each border would cost a reorder).
  if (options_.blocked_layouts && options_.winograd && cpu_has_winograd()) {
    for (Node* n : graph.nodes()) {
      if (live[n->id()] && is_winograd_shape(*n)) preferred_block_ = 16;
    }
  }
  for (Node* n : graph.nodes()) {
    if (!live[n->id()] || !n->type()) continue;
    // 8-byte elements take one more dim in oneDNN's descriptors (runtime/dnnl_util.h).
    const int64_t limit = DNNL_MAX_NDIMS - element_dims(n->type()->dtype);
    if (n->type()->rank() > limit) {
      fail("node '" + n->name() + "': not implemented in the runtime: a " +
           dtype_name(n->type()->dtype) + " tensor of rank " +
           std::to_string(n->type()->rank()) + " (oneDNN handles up to " +
           std::to_string(limit) + " dims)");
      return nullptr;
    }
  }
  // Inputs and outputs cross the API as eval::Tensor, which holds float32, int64 and bool: a
  // float64 input would compile and then refuse every tensor given to it.
  auto host_dtype = [](DType d) {
    return d == DType::kFloat32 || d == DType::kInt64 || d == DType::kBool;
  };
  for (const Node* n : graph.placeholders()) {
    if (!host_dtype(n->type()->dtype)) {
      fail("input '" + n->name() + "': not implemented in the runtime: a " +
           dtype_name(n->type()->dtype) + " input (inputs and outputs are float32, int64 or bool)");
      return nullptr;
    }
  }
  for (const Input& in : graph.output()->inputs()) {
    if (in.is_node() && in.node->type() && !host_dtype(in.node->type()->dtype)) {
      fail("output '" + in.node->name() + "': not implemented in the runtime: a " +
           dtype_name(in.node->type()->dtype) +
           " output (inputs and outputs are float32, int64 or bool)");
      return nullptr;
    }
  }
  for (Node* n : graph.nodes()) {
    if (n->is(NodeKind::kPlaceholder)) {
      const auto index = static_cast<int>(impl->inputs.size());
      impl->inputs.push_back({n->name(), n->type()->dtype, n->type()->shape});
      md_t md = plain_md(n->type()->shape, n->type()->dtype);
      node_values_[n->id()] =
          new_value(md, new_buffer({Buffer::Kind::kInput, md.get_size(), index, nullptr}));
    } else if (n->is(NodeKind::kCallFunction) && live[n->id()]) {
      if (!compile_node(*n)) return nullptr;
    }
  }
  impl->input_memories.resize(impl->inputs.size());
  // Each output is copied (reordered to plain) into the caller's tensor.
  for (const Input& in : graph.output()->inputs()) {
    if (!in.is_node()) {
      fail("graph outputs must be tensors, not literals");
      return nullptr;
    }
    const Node& n = *in.node;
    const auto index = static_cast<int>(impl->outputs.size());
    impl->outputs.push_back({n.name(), n.type()->dtype, n.type()->shape});
    md_t md = plain_md(n.type()->shape, n.type()->dtype);
    int out = new_value(md, new_buffer({Buffer::Kind::kOutput, md.get_size(), index, nullptr}));
    add_reorder(value_of(n), out, n.name() + ".output");
  }
  impl->output_memories.resize(impl->outputs.size());
  compute_lifetimes();
  apply_in_place();
  plan_and_bind(*impl);
  // Weights the kernels reordered into their own memory are not needed any more: drop this
  // clone's references so their bytes are freed with the caller's graph (peak RSS).
  std::vector<std::string> unused;
  for (const auto& entry : impl->graph->constants().all()) {
    if (!runtime_constants_.count(entry.key)) unused.push_back(entry.key);
  }
  for (const std::string& name : unused) impl->graph->constants().erase(name);
  impl->stream = dnnl::stream(cpu_engine());
  return make_executable(std::move(impl));
}

}  // namespace

std::unique_ptr<Executable> compile(const Graph& graph, const CompileOptions& options,
                                    DiagnosticEngine& diags) {
  Compiler compiler(options, diags);
  try {
    return compiler.run(graph);
  } catch (const dnnl::error& e) {
    // Kernel builders catch oneDNN's errors with their node; this is the safety net for the
    // compiler's own calls (reorders, memory objects), so no exception leaves the runtime.
    diags.error(DiagLocation::in_file(options.source_name),
                std::string("oneDNN failed while compiling: ") + e.what() + " (status " +
                    std::to_string(e.status) + ")");
    return nullptr;
  } catch (const AllocationError& e) {
    diags.error(DiagLocation::in_file(options.source_name), e.what());
    return nullptr;
  }
}

}  // namespace graft::runtime
