// The constant folder's fast path (see elementwise_fold.h). It computes what reference.cpp's
// unary() and binary() compute, element for element: both take their formulas from
// elementwise_formulas.h and read them from the node with node_formula.h, so the folded bytes
// do not depend on which path ran (elementwise_fold_test.cpp checks this byte for byte on
// random shapes). What it saves is everything around the arithmetic, which for the
// [8]-element tensors of a batch-norm fold was most of the cost: the formula and its
// attributes' indexes come from the op's schema (not from a name), operands are read where
// they lie (no Tensor wrappers, no operand vectors), broadcast strides live on the stack, and
// the only allocation is the result's buffer.
#include "eval/elementwise_fold.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "eval/allocation.h"
#include "eval/elementwise_formulas.h"
#include "eval/node_formula.h"

namespace graft::eval {
namespace {

/// Results with more dims go to the generic path; the fast one keeps strides in arrays this long.
constexpr size_t kMaxRank = 6;

// ** the formula **

/// out[i] = fn(in[i]) for i < n: double arithmetic, rounded to float once.
template <typename Fn>
void map_unary(const float* in, float* out, int64_t n, Fn fn) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(fn(static_cast<double>(in[i])));
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

/// out[i] = at(a, b) over the broadcast that `w` walks, for `total` > 0 output elements (an
/// operand broadcast along some dim of size > 1, as w * scale[8, 1, 1, 1]): row by row.
template <typename At>
void map_walk(At at, const float* a, const float* b, const Walk& w, int64_t total, float* out) {
  const int64_t row = w.extent[0];
  int64_t index[kMaxRank] = {};
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < total; i += row) {
    map_row(at, a + oa, w.stride_a[0], b + ob, w.stride_b[0], out + i, row);
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

// ** the prepared fold **

/// An input as prepared for: a literal (its value, which the reference rounds to float before
/// computing in double), or a tensor of `type` (float32; uniqued, so a tensor is checked
/// against it with one comparison).
struct Expected {
  bool scalar = false;
  float value = 0;
  const TensorType* type = nullptr;
  int64_t numel = 1;
};

/// fold_elementwise's work for one node that depends only on its operands' types, its literals
/// and its attributes: the formula, the result's shape and the broadcast walk. Made once per
/// replacement op by the rewrite driver (prepare_elementwise) and reused at every match; made
/// on the stack for a single fold (fold_elementwise).
class PreparedElementwise final : public PreparedFold {
 public:
  /// The node's fold, or nullopt where the fast path does not handle it: an op that is not a
  /// registry elementwise op, an untyped, non-float32 or non-broadcasting operand, an attribute
  /// the reference would reject, more than kMaxRank dims.
  static std::optional<PreparedElementwise> of(const Node& node) {
    const OpSchema* schema = node.schema();
    if (schema == nullptr || !schema->elementwise || !node.type() ||
        node.type()->dtype != DType::kFloat32) {
      return std::nullopt;
    }
    PreparedElementwise p;
    p.type_ = node.type();
    const Shape& out = p.type_->shape;
    std::optional<int64_t> total = element_count(out);
    if (out.size() > kMaxRank || !total ||
        *total > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(sizeof(float))) {
      return std::nullopt;
    }
    p.total_ = *total;
    p.binary_ = is_binary(schema->elementwise->formula);
    const size_t arity = p.binary_ ? 2 : 1;
    if (node.inputs().size() != arity) return std::nullopt;
    for (size_t i = 0; i < arity; ++i) {
      const Input& in = node.input(i);
      Expected& e = p.in_[i];
      if (in.is_scalar()) {
        e.scalar = true;
        e.value = static_cast<float>(in.scalar.value);
        continue;
      }
      if (!in.is_node() || !in.node->type() || in.node->type()->dtype != DType::kFloat32 ||
          !broadcasts_to(in.node->type()->shape, out)) {
        return std::nullopt;
      }
      std::optional<int64_t> n = element_count(in.node->type()->shape);
      if (!n) return std::nullopt;
      e.type = in.node->type();
      e.numel = *n;
    }
    // unary() reads a tensor of the result's size, element for element.
    if (!p.binary_ && (p.in_[0].scalar || p.in_[0].numel != p.total_)) return std::nullopt;
    // Where the reference would reject an attribute, its message is the generic path's to give.
    std::string error;
    std::optional<NodeFormula> f = node_formula(*schema, node.attrs(), &error);
    if (!f) return std::nullopt;
    p.formula_ = *f;
    // One row when each operand is either the result's size (laid out as the result: the only
    // dims it broadcasts have size 1) or a single element; otherwise a walk of the strides.
    p.one_row_ = true;
    for (size_t i = 0; i < arity; ++i) {
      p.one_row_ = p.one_row_ && (p.in_[i].numel == p.total_ || p.in_[i].numel == 1);
    }
    if (p.binary_ && !p.one_row_ && p.total_ > 0) {
      p.walk_ = walk_of(p.operand(0, nullptr), p.operand(1, nullptr), out);
    }
    return p;
  }

  bool run(const std::vector<const ConstantTensor*>& operands,
           ConstantTensor* result) const override {
    const size_t arity = binary_ ? 2 : 1;
    if (operands.size() != arity) return false;
    const float* data[2] = {};
    for (size_t i = 0; i < arity; ++i) {
      const Expected& e = in_[i];
      if (e.scalar) {
        data[i] = &e.value;
        continue;
      }
      // The tensor must be what was prepared for (the generic path copies misaligned ones).
      const ConstantTensor* t = operands[i];
      if (t == nullptr || &t->type() != e.type ||
          t->nbytes != static_cast<size_t>(e.numel) * sizeof(float) ||
          reinterpret_cast<uintptr_t>(t->data) % alignof(float) != 0) {
        return false;
      }
      data[i] = t->f32();
    }
    // As Tensor::zeros allocates, with the same limits and message, minus the zero fill that
    // every element is about to overwrite. Results are carved from an arena: a rewrite folds
    // millions of small tensors, and most of them (the folded weights) live as long as the
    // graph.
    const size_t nbytes = static_cast<size_t>(total_) * sizeof(float);
    thread_local BufferArena arena;
    std::shared_ptr<void> buffer =
        arena.allocate(nbytes, [&] { return "a tensor of " + type_to_string(*type_); });
    auto* out = static_cast<float*>(buffer.get());
    if (total_ > 0) {
      if (binary_) {
        const Operand a = operand(0, data[0]), b = operand(1, data[1]);
        with_binary(formula_.op, formula_.params, [&](auto fn) {
          auto at = [fn](float x, float y) {
            return static_cast<float>(fn(static_cast<double>(x), static_cast<double>(y)));
          };
          if (one_row_) {
            map_row(at, a.data, a.numel == total_ ? 1 : 0, b.data, b.numel == total_ ? 1 : 0, out,
                    total_);
          } else {
            map_walk(at, a.data, b.data, walk_, total_, out);
          }
        });
      } else {
        with_unary(formula_.op, formula_.params,
                   [&](auto fn) { map_unary(data[0], out, total_, fn); });
      }
    }
    result->set_type(type_);
    result->data = static_cast<const std::byte*>(buffer.get());
    result->nbytes = nbytes;
    result->owner = std::move(buffer);
    return true;
  }

 private:
  /// Input `i` as the kernels read it, its values at `data`.
  Operand operand(size_t i, const float* data) const {
    const Expected& e = in_[i];
    return e.scalar ? Operand{data, nullptr, 1} : Operand{data, &e.type->shape, e.numel};
  }

  const TensorType* type_ = nullptr;  // the result's (uniqued)
  int64_t total_ = 0;
  bool binary_ = false;
  bool one_row_ = true;
  Expected in_[2];
  NodeFormula formula_{};
  Walk walk_;
};

}  // namespace

std::optional<ConstantTensor> fold_elementwise(const Node& node,
                                               const std::vector<const ConstantTensor*>& operands) {
  std::optional<PreparedElementwise> prepared = PreparedElementwise::of(node);
  ConstantTensor result;
  if (!prepared || !prepared->run(operands, &result)) return std::nullopt;
  return result;
}

std::unique_ptr<PreparedFold> prepare_elementwise(const Node& node) {
  std::optional<PreparedElementwise> prepared = PreparedElementwise::of(node);
  if (!prepared) return nullptr;
  return std::make_unique<PreparedElementwise>(std::move(*prepared));
}

}  // namespace graft::eval
