// Reference kernels, part 1: the dispatch by op family, elementwise ops (unary, binary with torch
// broadcasting), the byte-copying views and identities, and the graph interpreter.
// Everything is a plain loop over row-major data; clarity over speed. Kernels that only move
// elements take any dtype; the others compute in float32 (float16 and bfloat16 widened to it,
// each result rounded once).
#include "eval/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/ir/half.h"
#include "eval/concretize.h"
#include "eval/elementwise_formulas.h"
#include "eval/node_formula.h"
#include "eval/reference_internal.h"

namespace graft::eval {
namespace ref {

const AttrValue* Call::attr(const std::string& name) const {
  int index = node.schema() ? node.schema()->attr_index(name) : -1;
  if (index < 0) {
    fail("op '" + node.target() + "' has no attribute '" + name + "'");
    return nullptr;
  }
  return &node.attrs()[static_cast<size_t>(index)];
}

std::optional<int64_t> Call::int_attr(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(v)) return *i;
  fail("attribute '" + name + "' is not an int");
  return std::nullopt;
}

std::optional<double> Call::float_attr(const std::string& name, double none_value) const {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (is_none(*v)) return none_value;
  if (const auto* d = std::get_if<double>(v)) return *d;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  fail("attribute '" + name + "' is not a number");
  return std::nullopt;
}

std::optional<bool> Call::bool_attr(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  fail("attribute '" + name + "' is not a bool");
  return std::nullopt;
}

std::optional<std::string> Call::str_attr(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  fail("attribute '" + name + "' is not a string");
  return std::nullopt;
}

std::optional<std::vector<int64_t>> Call::ints_attr(const std::string& name) const {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (is_none(*v)) return std::vector<int64_t>{};
  if (const auto* l = std::get_if<std::vector<int64_t>>(v)) return *l;
  if (const auto* i = std::get_if<int64_t>(v)) return std::vector<int64_t>{*i};
  if (const auto* d = std::get_if<std::vector<double>>(v); d && d->empty()) {
    return std::vector<int64_t>{};
  }
  fail("attribute '" + name + "' is not a list of ints");
  return std::nullopt;
}

std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

std::optional<float> activate(const std::string& name, double alpha, double beta, float x) {
  bool known = false;
  std::optional<Formula> formula = activation_formula(name, &known);
  if (!known) return std::nullopt;
  if (!formula) return x;  // 'none'
  float r = 0;
  with_unary(*formula, {alpha, beta}, [&](auto fn) { r = static_cast<float>(fn(x)); });
  return r;
}

namespace {

/// The node's formula and parameters (node_formula.h), or nullopt after setting the error.
std::optional<NodeFormula> formula_of(const Call& call) {
  std::string error;
  std::optional<NodeFormula> f = node_formula(*call.node.schema(), call.node.attrs(), &error);
  if (!f) call.fail(error);
  return f;
}

bool unary(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  if (!x) return call.fail("input must be a tensor");
  std::optional<NodeFormula> formula = formula_of(call);
  if (!formula) return false;
  const float* in = x->f32();
  float* o = out.f32();
  // One instantiation of the loop per op: the formula inlines.
  with_unary(formula->op, formula->params, [&](auto fn) {
    for (int64_t i = 0; i < out.numel(); ++i) {
      o[i] = static_cast<float>(fn(static_cast<double>(in[i])));
    }
  });
  return true;
}

/// Operand strides aligned to the output's dimensions: 0 where the operand is broadcast (a
/// missing leading dimension or a size-1 one), so that walking the output with an odometer walks
/// every operand too.
std::vector<int64_t> broadcast_strides(const RefOperand& operand, const Shape& out_shape) {
  // A scalar: every element reads the same value.
  if (!operand.tensor) return std::vector<int64_t>(out_shape.size(), 0);
  return graft::broadcast_strides(operand.tensor->shape(), out_shape.size());
}

/// Calls `f(out_index, a_offset, b_offset)` for every output element in order. Adjacent
/// dimensions that all three walk contiguously are merged first (w[8, 8, 3, 3] * s[8, 1, 1, 1]
/// is an [8, 72] walk), so the odometer turns once per row, not once per element.
template <typename F>
void for_each_broadcast(const Shape& out_shape, std::vector<int64_t> sa, std::vector<int64_t> sb,
                        F&& f) {
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  if (total == 0) return;
  std::vector<int64_t> shape(out_shape.begin(), out_shape.end());
  // Merge dimension d into d + 1 when stepping d equals stepping d + 1 a whole row.
  for (size_t d = shape.size(); d-- > 1;) {
    size_t inner = d, outer = d - 1;
    if (sa[outer] == sa[inner] * shape[inner] && sb[outer] == sb[inner] * shape[inner]) {
      shape[inner] *= shape[outer];
      shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(outer));
      sa.erase(sa.begin() + static_cast<std::ptrdiff_t>(outer));
      sb.erase(sb.begin() + static_cast<std::ptrdiff_t>(outer));
    }
  }
  if (shape.empty()) {  // a scalar result
    f(0, 0, 0);
    return;
  }
  size_t rank = shape.size();
  const int64_t row = shape[rank - 1], step_a = sa[rank - 1], step_b = sb[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < total; i += row) {
    for (int64_t k = 0; k < row; ++k) f(i + k, oa + k * step_a, ob + k * step_b);
    for (size_t d = rank - 1; d-- > 0;) {  // advance the outer dimensions
      oa += sa[d];
      ob += sb[d];
      if (++index[d] < shape[d]) break;
      oa -= sa[d] * shape[d];
      ob -= sb[d] * shape[d];
      index[d] = 0;
    }
  }
}

bool binary(const Call& call, Tensor& out) {
  std::optional<NodeFormula> formula = formula_of(call);
  if (!formula) return false;
  for (size_t i = 0; i < 2; ++i) {
    if (!call.operands[i].tensor && !call.operands[i].scalar) return call.fail("missing operand");
  }
  // A scalar operand reads element 0 of a one-element buffer (its strides are all 0).
  float scalar_a = call.operands[0].tensor ? 0.f : static_cast<float>(*call.operands[0].scalar);
  float scalar_b = call.operands[1].tensor ? 0.f : static_cast<float>(*call.operands[1].scalar);
  const float* a = call.operands[0].tensor ? call.operands[0].tensor->f32() : &scalar_a;
  const float* b = call.operands[1].tensor ? call.operands[1].tensor->f32() : &scalar_b;
  float* o = out.f32();
  std::vector<int64_t> sa = broadcast_strides(call.operands[0], out.shape());
  std::vector<int64_t> sb = broadcast_strides(call.operands[1], out.shape());
  // One instantiation of the loop per op: the formula inlines.
  with_binary(formula->op, formula->params, [&](auto fn) {
    for_each_broadcast(out.shape(), sa, sb, [&](int64_t i, int64_t ia, int64_t ib) {
      o[i] = static_cast<float>(fn(static_cast<double>(a[ia]), static_cast<double>(b[ib])));
    });
  });
  return true;
}

/// flatten, reshape, squeeze, unsqueeze, dropout, contiguous, clone: the bytes are unchanged.
bool copy(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  if (!x || x->nbytes() != out.nbytes()) return call.fail("input and result sizes differ");
  if (call.node.schema()->family == OpFamily::kDropout) {
    auto training = call.bool_attr("training");
    if (!training) return false;
    // In training, p = 0 zeroes nothing and scales by 1: the identity, exactly as torch.
    auto p = *training ? call.float_attr("p") : std::optional<double>(0.0);
    if (!p) return false;
    if (*p != 0) return call.fail("dropout in training mode with p > 0 is random");
  }
  if (out.nbytes() > 0) std::memcpy(out.data(), x->data(), out.nbytes());
  return true;
}

/// The reference kernel of each family; nullptr for kNone.
Kernel kernel_of(OpFamily family) {
  switch (family) {
    case OpFamily::kNone: return nullptr;
    case OpFamily::kConv2d: return conv2d;
    case OpFamily::kConv2dPost: return conv2d_post;
    case OpFamily::kLinear: return linear;
    case OpFamily::kLinearPost: return linear_post;
    case OpFamily::kMatmul: return matmul;
    case OpFamily::kBatchNorm: return batch_norm;
    case OpFamily::kLayerNorm: return layer_norm;
    case OpFamily::kSoftmax: return softmax;
    case OpFamily::kUnary: return unary;
    case OpFamily::kBinary: return binary;
    case OpFamily::kPool2d: return pool2d;
    case OpFamily::kAdaptivePool2d: return adaptive_pool2d;
    case OpFamily::kReduce: return reduce;
    case OpFamily::kCat: return cat;
    case OpFamily::kView:
    case OpFamily::kIdentity:
    case OpFamily::kDropout: return copy;
    case OpFamily::kPermute: return permute;
    case OpFamily::kInterpolate: return interpolate;
    case OpFamily::kConvNd: return conv_nd;
    case OpFamily::kCompare: return compare;
    case OpFamily::kLogical: return logical;
    case OpFamily::kWhere: return where;
    case OpFamily::kFullLike: return full_like;
    case OpFamily::kCast: return cast;
    case OpFamily::kCumsum: return cumsum;
    case OpFamily::kArgReduce: return arg_reduce;
    case OpFamily::kStrided: return strided;
    case OpFamily::kRoll: return roll;
    case OpFamily::kGather: return gather;
    case OpFamily::kScatter: return scatter;
    case OpFamily::kConvTranspose: return conv_transpose;
    case OpFamily::kGroupNorm: return group_norm;
    case OpFamily::kPad: return pad;
    case OpFamily::kPool3d: return pool_nd;
    case OpFamily::kAdaptivePool3d: return adaptive_pool_nd;
    case OpFamily::kArange: return arange;
    case OpFamily::kAttention: return attention;
  }
  return nullptr;
}

}  // namespace

}  // namespace ref

namespace {

/// Whether a node reads float16 or bfloat16 elements (kernels that only move elements copy
/// them as they are).
bool needs_widening(OpFamily family, const std::vector<RefOperand>& operands, const Tensor& out) {
  if (family_moves_elements(family)) return false;
  bool half = is_half(out.dtype());
  for (const RefOperand& o : operands) half = half || (o.tensor && is_half(o.tensor->dtype()));
  return half;
}

/// A node on float16 or bfloat16 tensors: its half operands widened to float32, computed in
/// float32 and the result rounded once into `out`, as torch's CPU kernels compute half.
bool reference_in_float(const Node& node, const std::vector<RefOperand>& operands, Tensor& out,
                        std::string* error) {
  std::vector<Tensor> widened(operands.size());
  std::vector<RefOperand> wide = operands;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].tensor && is_half(operands[i].tensor->dtype())) {
      widened[i] = convert_float(*operands[i].tensor, DType::kFloat32);
      wide[i].tensor = &widened[i];
    }
  }
  if (!is_half(out.dtype())) return reference_op(node, wide, out, error);
  Tensor wide_out = Tensor::zeros(DType::kFloat32, out.shape());
  if (!reference_op(node, wide, wide_out, error)) return false;
  const Tensor rounded = convert_float(wide_out, out.dtype());
  if (out.nbytes() > 0) std::memcpy(out.data(), rounded.data(), out.nbytes());
  return true;
}

}  // namespace

bool has_reference(const OpSchema& op) { return ref::kernel_of(op.family) != nullptr; }

bool reference_op(const Node& node, const std::vector<RefOperand>& operands, Tensor& out,
                  std::string* error) {
  ref::Kernel kernel = node.schema() ? ref::kernel_of(node.schema()->family) : nullptr;
  if (kernel == nullptr) {
    *error = "no reference kernel for op '" + node.target() + "'";
    return false;
  }
  if (has_symbolic_attr(*node.schema(), node.attrs())) {
    // A symbol's value is unknown here: concretize_graph substitutes bound values first.
    *error = "'" + node.target() + "' has a symbolic attribute; bind its symbol first";
    return false;
  }
  if (needs_widening(node.schema()->family, operands, out)) {
    return reference_in_float(node, operands, out, error);
  }
  if (!family_takes_any_dtype(node.schema()->family)) {
    auto float32 = [](DType d) { return d == DType::kFloat32; };
    bool ok = float32(out.dtype());
    for (const RefOperand& o : operands) ok = ok && (!o.tensor || float32(o.tensor->dtype()));
    if (!ok) {
      *error = "the reference kernel of '" + node.target() + "' computes float32 only";
      return false;
    }
  }
  return kernel(ref::Call{node, operands, error}, out);
}

namespace {

/// Adds e * max(|v|, 1) to each element v of float32 `t`, |e| <= noise.relative (of a float16
/// or bfloat16 `t`, noise.half_units of its precision, then rounded), from a splitmix64 stream
/// seeded per node, so that a run is repeatable.
void add_rounding_noise(Tensor& t, const RoundingNoise& noise, uint64_t node_id) {
  const bool half = is_half(t.dtype());
  if (t.dtype() != DType::kFloat32 && !half) return;
  const double relative = half ? noise.half_units * dtype_epsilon(t.dtype()) : noise.relative;
  if (relative == 0) return;
  uint64_t state = noise.seed * 0x9E3779B97F4A7C15ull + node_id;
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double unit = static_cast<double>(z >> 11) * 0x1.0p-53 * 2 - 1;  // [-1, 1)
    const double v = t.value_at(i);
    const auto perturbed = static_cast<float>(v + relative * unit * std::max(std::fabs(v), 1.0));
    if (half) {
      static_cast<uint16_t*>(t.data())[i] = float_to_half_bits(t.dtype(), perturbed);
    } else {
      t.f32()[i] = perturbed;
    }
  }
}

}  // namespace

std::optional<std::vector<Tensor>> run_reference(const Graph& graph,
                                                 const std::vector<Tensor>& inputs,
                                                 DiagnosticEngine& diags,
                                                 const std::optional<RoundingNoise>& noise) {
  std::vector<Node*> placeholders = graph.placeholders();
  if (placeholders.size() != inputs.size()) {
    diags.error({}, "the model has " + std::to_string(placeholders.size()) + " inputs, " +
                        std::to_string(inputs.size()) + " given");
    return std::nullopt;
  }
  ShapeBindings bindings;
  for (size_t i = 0; i < inputs.size(); ++i) bindings.inputs[placeholders[i]->name()] = inputs[i].shape();
  std::unique_ptr<Graph> g = concretize_graph(graph, bindings, "", diags);
  if (!g) return std::nullopt;
  std::vector<Tensor> values(g->id_bound());
  size_t next_input = 0;
  std::vector<Tensor> outputs;
  for (Node* n : g->nodes()) {
    switch (n->kind()) {
      case NodeKind::kPlaceholder:
        values[n->id()] = inputs[next_input++];
        break;
      case NodeKind::kGetAttr: {
        const ConstantTensor* c = g->constant(*n);
        values[n->id()] = Tensor::borrow(c->dtype(), c->shape(), const_cast<std::byte*>(c->data));
        break;
      }
      case NodeKind::kCallFunction: {
        std::vector<RefOperand> operands;
        for (const Input& in : n->inputs()) {
          RefOperand o;
          if (in.is_node()) o.tensor = &values[in.node->id()];
          if (in.is_scalar()) o.scalar = in.scalar.value;
          operands.push_back(o);
        }
        Tensor out = Tensor::zeros(n->type()->dtype, n->type()->shape);
        std::string error;
        if (!reference_op(*n, operands, out, &error)) {
          diags.error({}, "node '" + n->name() + "' (" + n->target() + "): " + error);
          return std::nullopt;
        }
        if (noise) add_rounding_noise(out, *noise, n->id());
        values[n->id()] = std::move(out);
        break;
      }
      case NodeKind::kOutput:
        for (const Input& in : n->inputs()) {
          if (!in.is_node()) {
            diags.error({}, "graph outputs must be tensors");
            return std::nullopt;
          }
          outputs.push_back(values[in.node->id()].clone());
        }
        break;
    }
  }
  return outputs;
}

}  // namespace graft::eval
