// The constant folder's fast path (see elementwise_fold.h). It computes what reference.cpp's
// unary() and binary() compute, element for element: the same double arithmetic, copied from
// there, so the folded bytes do not depend on which path ran (elementwise_fold_test.cpp checks
// this byte for byte on random shapes). What it saves is everything around the arithmetic,
// which for the [8]-element tensors of a batch-norm fold was most of the cost: the op is
// resolved through its schema's id in a table built once (not by name), operands are read
// where they lie (no Tensor wrappers, no operand vectors), broadcast strides live on the stack,
// and the only allocation is the result's buffer.
#include "runtime/elementwise_fold.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/op_registry.h"
#include "runtime/allocation.h"

namespace graft::runtime {
namespace {

/// Results with more dims go to the generic path; the fast one keeps strides in arrays this long.
constexpr size_t kMaxRank = 6;

// clang-format off
enum class ElementwiseOp : uint8_t {
  kUnhandled,
  // binary, as reference.cpp's binary()
  kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum,
  // unary, as reference.cpp's unary() and activate()
  kSqrt, kRsqrt, kExp, kLog, kNeg, kReciprocal, kAbs, kErf, kSoftplus,
  kRelu, kRelu6, kHardtanh, kLeakyRelu, kElu, kHardswish, kHardsigmoid, kSilu, kSigmoid,
  kGelu, kTanh, kClamp,
};
// clang-format on
using enum ElementwiseOp;

bool is_binary(ElementwiseOp op) { return op >= kAdd && op <= kMinimum; }

/// How an op is folded: which op it is, and the indexes of the (up to two) attributes the
/// reference reads for it, resolved once instead of by name on every fold.
struct OpEntry {
  ElementwiseOp op = kUnhandled;
  int attr[2] = {-1, -1};
};

/// The entries of the registry's ops, indexed by OpId. A node is looked up by its schema's id
/// and the schema's address is checked against the registry's: test-local stand-in schemas
/// (tests/runtime/test_ops.h) may reuse an id, and they go to the generic path.
struct OpTable {
  const OpSchema* schemas = nullptr;
  std::vector<OpEntry> entries;
};

const OpTable& op_table() {
  static const OpTable table = [] {
    struct Row {
      const char* op;
      ElementwiseOp kind;
      const char* attrs[2];
    };
    // clang-format off
    const Row rows[] = {
        {"add", kAdd, {"alpha"}}, {"sub", kSub, {"alpha"}}, {"mul", kMul, {}},
        {"div", kDiv, {"rounding_mode"}}, {"pow", kPow, {}}, {"maximum", kMaximum, {}},
        {"minimum", kMinimum, {}}, {"sqrt", kSqrt, {}}, {"rsqrt", kRsqrt, {}}, {"exp", kExp, {}},
        {"log", kLog, {}}, {"neg", kNeg, {}}, {"reciprocal", kReciprocal, {}}, {"abs", kAbs, {}},
        {"erf", kErf, {}}, {"softplus", kSoftplus, {"beta", "threshold"}}, {"relu", kRelu, {}},
        {"relu6", kRelu6, {}}, {"hardtanh", kHardtanh, {"min_val", "max_val"}},
        {"leaky_relu", kLeakyRelu, {"negative_slope"}}, {"elu", kElu, {"alpha"}},
        {"hardswish", kHardswish, {}}, {"hardsigmoid", kHardsigmoid, {}}, {"silu", kSilu, {}},
        {"sigmoid", kSigmoid, {}}, {"gelu", kGelu, {"approximate"}}, {"tanh", kTanh, {}},
        {"clamp", kClamp, {"min", "max"}},
    };
    // clang-format on
    const OpRegistry& registry = OpRegistry::get();
    OpTable t;
    t.schemas = registry.ops().data();
    t.entries.resize(registry.ops().size());
    for (const Row& row : rows) {
      // The reference dispatches on the node's target, which is the schema's name: an op
      // reachable only through an alias has no reference kernel, so no entry either.
      const OpSchema* schema = registry.find(row.op);
      if (schema == nullptr || schema->name != row.op) continue;
      OpEntry entry{row.kind};
      bool complete = true;
      for (int k = 0; k < 2; ++k) {
        if (row.attrs[k] == nullptr) continue;
        entry.attr[k] = schema->attr_index(row.attrs[k]);
        complete = complete && entry.attr[k] >= 0;
      }
      // Were an attribute the reference reads missing, its answer (an error, or a default)
      // would be the generic path's to give.
      if (complete) t.entries[schema->id] = entry;
    }
    return t;
  }();
  return table;
}

const OpEntry* entry_of(const OpSchema* schema) {
  const OpTable& t = op_table();
  if (schema == nullptr || schema->id >= t.entries.size() || schema != &t.schemas[schema->id]) {
    return nullptr;
  }
  const OpEntry& entry = t.entries[schema->id];
  return entry.op == kUnhandled ? nullptr : &entry;
}

/// A number attribute as the reference's Call::float_attr reads it (None is `none_value`, an
/// int converts); nullopt where that fails.
std::optional<double> number_attr(const Node& node, int index, double none_value) {
  const AttrValue& v = node.attrs()[static_cast<size_t>(index)];
  if (is_none(v)) return none_value;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::nullopt;
}

// ** unary **

/// The attribute values unary() reads, in the slots it puts them: activate()'s alpha and beta
/// (hardtanh's and clamp's bounds, leaky_relu's slope, elu's alpha), softplus's beta and
/// threshold, and gelu's choice of the tanh approximation.
struct UnaryParams {
  double alpha = 0, beta = 0;
  bool gelu_tanh = false;
};

std::optional<UnaryParams> unary_params(const Node& node, const OpEntry& entry) {
  UnaryParams p;
  std::optional<double> a = 0, b = 0;
  switch (entry.op) {
    case kHardtanh:
    case kSoftplus:
      a = number_attr(node, entry.attr[0], 0);
      b = number_attr(node, entry.attr[1], 0);
      break;
    case kClamp:  // None is no bound
      a = number_attr(node, entry.attr[0], -INFINITY);
      b = number_attr(node, entry.attr[1], INFINITY);
      break;
    case kLeakyRelu:
    case kElu:
      a = number_attr(node, entry.attr[0], 0);
      break;
    case kGelu: {
      // The reference computes exact gelu for any string but 'tanh'; strings torch rejects
      // are left to it.
      const auto* mode =
          std::get_if<std::string>(&node.attrs()[static_cast<size_t>(entry.attr[0])]);
      if (mode == nullptr || (*mode != "none" && *mode != "tanh")) return std::nullopt;
      p.gelu_tanh = *mode == "tanh";
      break;
    }
    default:
      break;
  }
  if (!a || !b) return std::nullopt;
  p.alpha = *a;
  p.beta = *b;
  return p;
}

template <typename Fn>
void map_unary(const float* in, float* out, int64_t n, Fn fn) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(fn(static_cast<double>(in[i])));
}

/// Each expression is reference.cpp's (unary(), softplus(), activate()) verbatim: double
/// arithmetic, rounded to float once (by map_unary).
void fold_unary(ElementwiseOp op, const UnaryParams& p, const float* in, float* out, int64_t n) {
  const double alpha = p.alpha, beta = p.beta;
  auto run = [&](auto fn) { map_unary(in, out, n, fn); };
  switch (op) {
    case kSqrt:
      return run([](double v) { return std::sqrt(v); });
    case kRsqrt:
      return run([](double v) { return 1 / std::sqrt(v); });
    case kExp:
      return run([](double v) { return std::exp(v); });
    case kLog:
      return run([](double v) { return std::log(v); });
    case kNeg:
      return run([](double v) { return -v; });
    case kReciprocal:
      return run([](double v) { return 1 / v; });
    case kAbs:
      return run([](double v) { return std::fabs(v); });
    case kErf:
      return run([](double v) { return std::erf(v); });
    case kSoftplus:  // alpha is softplus's beta, beta its threshold
      return run(
          [=](double v) { return v * alpha > beta ? v : std::log1p(std::exp(v * alpha)) / alpha; });
    case kRelu:
      return run([](double v) { return v > 0 ? v : 0; });
    case kRelu6:
      return run([](double v) { return std::min(std::max(v, 0.0), 6.0); });
    case kHardtanh:
    case kClamp:
      return run([=](double v) { return std::min(std::max(v, alpha), beta); });
    case kLeakyRelu:
      return run([=](double v) { return v > 0 ? v : v * alpha; });
    case kElu:
      return run([=](double v) { return v > 0 ? v : alpha * (std::exp(v) - 1); });
    case kHardswish:
      return run([](double v) { return v * std::min(std::max(v + 3, 0.0), 6.0) / 6; });
    case kHardsigmoid:
      return run([](double v) { return std::min(std::max(v + 3, 0.0), 6.0) / 6; });
    case kSilu:
      return run([](double v) { return v / (1 + std::exp(-v)); });
    case kSigmoid:
      return run([](double v) { return 1 / (1 + std::exp(-v)); });
    case kTanh:
      return run([](double v) { return std::tanh(v); });
    case kGelu:
      if (p.gelu_tanh) {
        const double c = std::sqrt(2.0 / M_PI);
        return run(
            [c](double v) { return 0.5 * v * (1 + std::tanh(c * (v + 0.044715 * v * v * v))); });
      }
      return run([](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); });
    default:
      return;  // binary ops never get here
  }
}

// ** binary **

/// An operand read in place: a tensor, or a scalar literal (no shape, one element).
struct Operand {
  const float* data = nullptr;
  const Shape* shape = nullptr;
  int64_t numel = 1;
};

/// True if `shape` broadcasts to `out` (torch's rule; the result's shape is never widened).
bool broadcasts_to(const Shape& shape, const Shape& out) {
  if (shape.size() > out.size()) return false;
  const size_t lead = out.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != out[lead + d] && shape[d] != 1) return false;
  }
  return true;
}

/// The output's dims with each operand's strides, adjacent dims that both operands walk
/// contiguously merged (w[8, 8, 3, 3] * s[8, 1, 1, 1] walks [8, 72]) and size-1 dims dropped;
/// innermost first. The odometer below turns once per merged row, not once per element.
struct Walk {
  size_t rank = 0;
  int64_t extent[kMaxRank];
  int64_t stride_a[kMaxRank];
  int64_t stride_b[kMaxRank];
};

/// `x`'s strides aligned to the output's dims: 0 where it is broadcast (a missing leading dim,
/// a size-1 dim, or a scalar), as reference.cpp's broadcast_strides().
void broadcast_strides(const Operand& x, const Shape& out, int64_t* strides) {
  std::fill(strides, strides + out.size(), 0);
  if (x.shape == nullptr) return;
  const Shape& s = *x.shape;
  const size_t lead = out.size() - s.size();
  int64_t step = 1;
  for (size_t d = s.size(); d-- > 0;) {
    if (s[d] != 1) strides[lead + d] = step;
    step *= s[d];
  }
}

Walk walk_of(const Operand& a, const Operand& b, const Shape& out) {
  int64_t sa[kMaxRank], sb[kMaxRank];
  broadcast_strides(a, out, sa);
  broadcast_strides(b, out, sb);
  Walk w;
  for (size_t d = out.size(); d-- > 0;) {
    if (out[d] == 1) continue;  // a single index: no step to take
    const size_t m = w.rank;
    if (m > 0 && sa[d] == w.stride_a[m - 1] * w.extent[m - 1] &&
        sb[d] == w.stride_b[m - 1] * w.extent[m - 1]) {
      w.extent[m - 1] *= out[d];
      continue;
    }
    w.extent[m] = out[d];
    w.stride_a[m] = sa[d];
    w.stride_b[m] = sb[d];
    ++w.rank;
  }
  return w;
}

/// out[k] = at(a[k * step_a], b[k * step_b]) for k < n. A step is 1 (contiguous) or 0 (one
/// value, broadcast) in every case walk_of() produces — its innermost dim is one an operand
/// either walks densely or broadcasts — and those get plain loops the compiler vectorises.
template <typename At>
void map_row(At at, const float* a, int64_t step_a, const float* b, int64_t step_b, float* out,
             int64_t n) {
  if (step_a == 1 && step_b == 1) {
    for (int64_t k = 0; k < n; ++k) out[k] = at(a[k], b[k]);
  } else if (step_a == 1 && step_b == 0) {
    const float y = b[0];
    for (int64_t k = 0; k < n; ++k) out[k] = at(a[k], y);
  } else if (step_a == 0 && step_b == 1) {
    const float x = a[0];
    for (int64_t k = 0; k < n; ++k) out[k] = at(x, b[k]);
  } else {
    for (int64_t k = 0; k < n; ++k) out[k] = at(a[k * step_a], b[k * step_b]);
  }
}

/// out[i] = fn(a, b) over the broadcast, for `total` > 0 output elements. An operand with as
/// many elements as the output is laid out as the output is (the only dims it broadcasts have
/// size 1); one with a single element is read once. Those are the hot cases (var + eps,
/// mean * scale): one row. Anything else (w * scale[8, 1, 1, 1]) walks the strides row by row.
template <typename Fn>
void map_binary(const Operand& a, const Operand& b, const Shape& out_shape, int64_t total,
                float* out, Fn fn) {
  auto at = [fn](float x, float y) {
    return static_cast<float>(fn(static_cast<double>(x), static_cast<double>(y)));
  };
  if ((a.numel == total || a.numel == 1) && (b.numel == total || b.numel == 1)) {
    map_row(at, a.data, a.numel == total ? 1 : 0, b.data, b.numel == total ? 1 : 0, out, total);
    return;
  }
  // An operand here has more than one element and fewer than the output, so it is broadcast
  // along some dim of size > 1: the walk has at least one dim.
  const Walk w = walk_of(a, b, out_shape);
  const int64_t row = w.extent[0];
  int64_t index[kMaxRank] = {};
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < total; i += row) {
    map_row(at, a.data + oa, w.stride_a[0], b.data + ob, w.stride_b[0], out + i, row);
    for (size_t d = 1; d < w.rank; ++d) {  // advance the outer dims
      oa += w.stride_a[d];
      ob += w.stride_b[d];
      if (++index[d] < w.extent[d]) break;
      oa -= w.stride_a[d] * w.extent[d];
      ob -= w.stride_b[d] * w.extent[d];
      index[d] = 0;
    }
  }
}

enum class Rounding : uint8_t { kNone, kTrunc, kFloor };

/// add's and sub's alpha, div's rounding_mode, read as binary() reads them.
struct BinaryParams {
  double alpha = 1;
  Rounding rounding = Rounding::kNone;
};

std::optional<BinaryParams> binary_params(const Node& node, const OpEntry& entry) {
  BinaryParams p;
  if (entry.op == kAdd || entry.op == kSub) {
    std::optional<double> alpha = number_attr(node, entry.attr[0], 1);
    if (!alpha) return std::nullopt;
    p.alpha = *alpha;
  } else if (entry.op == kDiv) {
    // None (or any non-string) is true division; a string other than these three is an
    // error the reference reports.
    const AttrValue& mode = node.attrs()[static_cast<size_t>(entry.attr[0])];
    if (const auto* m = std::get_if<std::string>(&mode)) {
      if (*m == "trunc")
        p.rounding = Rounding::kTrunc;
      else if (*m == "floor")
        p.rounding = Rounding::kFloor;
      else if (*m != "none")
        return std::nullopt;
    }
  }
  return p;
}

/// Each expression is binary()'s verbatim.
void fold_binary(ElementwiseOp op, const BinaryParams& p, const Operand& a, const Operand& b,
                 const Shape& out_shape, int64_t total, float* out) {
  const double alpha = p.alpha;
  auto run = [&](auto fn) { map_binary(a, b, out_shape, total, out, fn); };
  switch (op) {
    case kAdd:
      return run([alpha](double x, double y) { return x + alpha * y; });
    case kSub:
      return run([alpha](double x, double y) { return x - alpha * y; });
    case kMul:
      return run([](double x, double y) { return x * y; });
    case kDiv:
      if (p.rounding == Rounding::kFloor) {
        return run([](double x, double y) { return std::floor(x / y); });
      }
      if (p.rounding == Rounding::kTrunc) {
        return run([](double x, double y) { return std::trunc(x / y); });
      }
      return run([](double x, double y) { return x / y; });
    case kPow:
      return run([](double x, double y) { return std::pow(x, y); });
    // torch.maximum/minimum propagate NaN from either side (std::fmax would drop it).
    case kMaximum:
      return run(
          [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); });
    case kMinimum:
      return run(
          [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); });
    default:
      return;  // unary ops never get here
  }
}

// ** operands and the result **

/// Input `input` read in place (`t` is its constant; `scalar` holds a literal's float, which
/// the reference rounds to float before computing in double), or nullopt where the fast path
/// does not read it: None, a non-float32 or misaligned tensor (the generic path copies those),
/// or one that does not broadcast to the result.
std::optional<Operand> operand_of(const Input& input, const ConstantTensor* t, const Shape& out,
                                  float* scalar) {
  if (input.is_scalar()) {
    *scalar = static_cast<float>(input.scalar.value);
    return Operand{scalar, nullptr, 1};
  }
  if (t == nullptr || t->dtype != DType::kFloat32 ||
      reinterpret_cast<uintptr_t>(t->data) % alignof(float) != 0 || !broadcasts_to(t->shape, out)) {
    return std::nullopt;
  }
  std::optional<int64_t> n = element_count(t->shape);
  if (!n || t->nbytes != static_cast<size_t>(*n) * sizeof(float)) return std::nullopt;
  return Operand{t->f32(), &t->shape, *n};
}

}  // namespace

std::optional<ConstantTensor> fold_elementwise(const Node& node,
                                               const std::vector<const ConstantTensor*>& operands) {
  const OpEntry* entry = entry_of(node.schema());
  if (entry == nullptr || !node.type() || node.type()->dtype != DType::kFloat32)
    return std::nullopt;
  const Shape& out_shape = node.type()->shape;
  std::optional<int64_t> total = element_count(out_shape);
  if (out_shape.size() > kMaxRank || !total ||
      *total > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(sizeof(float))) {
    return std::nullopt;
  }
  const bool binary = is_binary(entry->op);
  const size_t arity = binary ? 2 : 1;
  if (operands.size() != arity || node.inputs().size() != arity) return std::nullopt;
  Operand in[2];
  float scalars[2];
  for (size_t i = 0; i < arity; ++i) {
    std::optional<Operand> x = operand_of(node.input(i), operands[i], out_shape, &scalars[i]);
    if (!x) return std::nullopt;
    in[i] = *x;
  }
  std::optional<UnaryParams> unary;
  std::optional<BinaryParams> params;
  if (binary) {
    params = binary_params(node, *entry);
    if (!params) return std::nullopt;
  } else {
    // unary() reads a tensor of the result's size, element for element.
    if (in[0].shape == nullptr || in[0].numel != *total) return std::nullopt;
    unary = unary_params(node, *entry);
    if (!unary) return std::nullopt;
  }
  // As Tensor::zeros allocates, with the same limits and message, minus the zero fill that
  // every element is about to overwrite.
  const size_t nbytes = static_cast<size_t>(*total) * sizeof(float);
  std::shared_ptr<void> buffer = allocate_buffer(
      nbytes, 64, false, [&] { return "a tensor of " + type_to_string(*node.type()); });
  auto* out = static_cast<float*>(buffer.get());
  if (*total > 0) {
    if (binary)
      fold_binary(entry->op, *params, in[0], in[1], out_shape, *total, out);
    else
      fold_unary(entry->op, *unary, in[0].data, out, *total);
  }
  ConstantTensor result;
  result.dtype = DType::kFloat32;
  result.shape = out_shape;
  result.data = static_cast<const std::byte*>(buffer.get());
  result.nbytes = nbytes;
  result.owner = std::move(buffer);
  return result;
}

}  // namespace graft::runtime
