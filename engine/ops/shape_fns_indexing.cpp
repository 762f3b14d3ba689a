// Shape functions of the ops that pick or repeat elements by position: slice, select, expand,
// expand_as, unflatten, roll, flip, the int64-indexed embedding and index_select, and
// slice_scatter and select_scatter, which write into a slice or select. All keep the input's
// dtype (embedding: the weight's) and accept any dtype. Sizes that depend on a symbol's value
// are unknown until the symbol is bound.
#include <limits>

#include "engine/ops/shape_fns.h"
#include "engine/ops/slice_bounds.h"
#include "engine/ops/target_sizes.h"

namespace graft::shape_fns {
namespace {

/// An `int?` attribute: nullopt for None.
std::optional<int64_t> optional_int(const InferInputs& in, const std::string& name) {
  const AttrValue& v = in.attr(name);
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  return std::nullopt;
}

/// The `dim` attribute of an op that indexes a dim of `x` (not of a 0-d tensor), made
/// non-negative; nullopt after setting `error`.
std::optional<int64_t> indexed_dim(const InferInputs& in, const TensorType& x, const char* op,
                                   std::string* error) {
  if (x.rank() == 0) {
    *error = std::string(op) + "() cannot be applied to a 0-dim tensor";
    return std::nullopt;
  }
  return wrap_dim(in.int_attr("dim"), x.rank(), error);
}

/// Operand `i` as an int64 tensor, or nullptr after setting `error`.
const TensorType* require_int64(const InferInputs& in, size_t i, std::string* error) {
  const TensorType* t = require_tensor(in, i, error);
  if (t != nullptr && t->dtype != DType::kInt64) {
    *error = operand_name(in, i) + " has dtype " + dtype_name(t->dtype) + ", expected int64";
    return nullptr;
  }
  return t;
}

/// The shape `x` expands to for the requested `sizes` (-1 keeps a dim), as torch.expand.
Result expand_to(const TensorType& x, const Shape& sizes, std::string* error) {
  if (static_cast<int64_t>(sizes.size()) < x.rank()) {
    *error = "the number of sizes " + ints_to_string(sizes) + " (" + std::to_string(sizes.size()) +
             ") must be at least the input's rank (" + std::to_string(x.rank()) + ")";
    return std::nullopt;
  }
  const size_t lead = sizes.size() - static_cast<size_t>(x.rank());
  Shape out(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    const Dim want = sizes[i];
    if (i < lead) {
      out[i] = want;
      continue;
    }
    const Dim have = x.shape[i - lead];
    if (want == -1 || want == have) {
      out[i] = have;
    } else if (want < -1) {
      out[i] = want;  // a symbol: expand_as to a symbolic shape
      if (is_concrete(have) && have != 1) out[i] = have;
    } else if (have == 1 || !is_concrete(have)) {
      out[i] = want;  // a symbolic size is trusted to be 1 or `want`; binding checks it
    } else {
      *error = "cannot expand " + shape_to_string(x.shape) + " to " + ints_to_string(sizes) +
               ": dim " + std::to_string(i) + " has size " + std::to_string(have) +
               ", which is not 1";
      return std::nullopt;
    }
  }
  return TensorType{x.dtype, out};
}

}  // namespace

}  // namespace graft::shape_fns

namespace graft {

std::pair<int64_t, int64_t> slice_bounds(std::optional<int64_t> start, std::optional<int64_t> end,
                                         int64_t size) {
  // Python's clamping as torch's slice applies it: negative bounds count from the end, then
  // both are clamped to [0, size], and an end before the start gives an empty slice.
  auto clamp = [size](std::optional<int64_t> v, int64_t fallback) {
    if (!v) return fallback;
    int64_t x = *v;
    if (x < 0) x = x < -size ? 0 : x + size;
    return x > size ? size : x;
  };
  int64_t s = clamp(start, 0);
  int64_t e = clamp(end, size);
  return {s, e < s ? s : e};
}

}  // namespace graft

namespace graft::shape_fns {

Result slice(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  std::optional<int64_t> dim = indexed_dim(in, *x, "slice", error);
  if (!dim) return std::nullopt;
  const int64_t step = in.int_attr("step");
  if (step <= 0) {
    *error = "step must be positive, got " + std::to_string(step);
    return std::nullopt;
  }
  Shape out = x->shape;
  Dim& d = out[static_cast<size_t>(*dim)];
  const std::string* start_symbol = in.symbol_attr("start");
  if (start_symbol != nullptr || in.symbol_attr("end") != nullptr) {
    // x[:S] has S elements when S <= the dim (eval/concretize.h checks that once S is bound);
    // other symbolic bounds (and ends such as "S-1") give a size that depends on the values.
    const std::string* end_symbol = in.symbol_attr("end");
    const bool head = start_symbol == nullptr && optional_int(in, "start").value_or(0) == 0 &&
                      step == 1 && end_symbol != nullptr;
    d = head && is_symbol_name(*end_symbol) ? dim_symbol(*end_symbol) : unknown_dim();
    return TensorType{x->dtype, out};
  }
  std::optional<int64_t> start = optional_int(in, "start"), end = optional_int(in, "end");
  const bool whole = start.value_or(0) == 0 &&
                     end.value_or(std::numeric_limits<int64_t>::max()) ==
                         std::numeric_limits<int64_t>::max() &&
                     step == 1;
  if (!is_concrete(d)) {
    if (!whole) d = unknown_dim();  // the size depends on the symbol's value
  } else {
    auto [s, e] = slice_bounds(start, end, d);
    d = e == s ? 0 : (e - s - 1) / step + 1;  // ceil((e - s) / step) without overflow
  }
  return TensorType{x->dtype, out};
}

Result select(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  std::optional<int64_t> dim = indexed_dim(in, *x, "select", error);
  if (!dim) return std::nullopt;
  const Dim size = x->shape[static_cast<size_t>(*dim)];
  const int64_t index = in.int_attr("index");
  if (is_concrete(size) && (index < -size || index >= size)) {
    *error = "index " + std::to_string(index) + " out of range for dim " + std::to_string(*dim) +
             " of size " + std::to_string(size) + " (expected " + std::to_string(-size) +
             " to " + std::to_string(size - 1) + ")";
    return std::nullopt;
  }
  Shape out = x->shape;
  out.erase(out.begin() + *dim);
  return TensorType{x->dtype, out};
}

namespace {

/// A scatter's type: input's, after checking that src has the dtype of input and the shape of
/// `part`, the slice or select of input it replaces (dims a symbol leaves open match any).
Result scatter_into(const InferInputs& in, const Result& part, std::string* error) {
  if (!part) return std::nullopt;
  const TensorType* src = require_tensor(in, 1, error);
  if (src == nullptr) return std::nullopt;
  const TensorType& x = *in.type(0);  // `part` came from it
  if (src->dtype != x.dtype) {
    *error = operand_name(in, 1) + " has dtype " + dtype_name(src->dtype) +
             ", expected input's dtype " + dtype_name(x.dtype);
    return std::nullopt;
  }
  bool same = src->rank() == part->rank();
  for (size_t i = 0; same && i < src->shape.size(); ++i) {
    const Dim a = src->shape[i], b = part->shape[i];
    same = a == b || !is_concrete(a) || !is_concrete(b);
  }
  if (!same) {
    *error = operand_name(in, 1) + " has shape " + shape_to_string(src->shape) +
             ", expected the shape " + shape_to_string(part->shape) +
             " of the part of input it replaces";
    return std::nullopt;
  }
  return x;
}

}  // namespace

Result slice_scatter(const InferInputs& in, std::string* error) {
  return scatter_into(in, slice(in, error), error);
}

Result select_scatter(const InferInputs& in, std::string* error) {
  return scatter_into(in, select(in, error), error);
}

Result expand(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  const std::vector<int64_t>& sizes = in.ints_attr("size");
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < -1) {
      *error = "invalid size " + std::to_string(sizes[i]) + " in " + ints_to_string(sizes);
      return std::nullopt;
    }
    if (sizes[i] == -1 && static_cast<int64_t>(i) + x->rank() < static_cast<int64_t>(sizes.size())) {
      *error = "size -1 for new leading dim " + std::to_string(i) + " in " +
               ints_to_string(sizes) + " (new dims cannot be -1)";
      return std::nullopt;
    }
  }
  return expand_to(*x, sizes, error);
}

Result expand_as(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  const TensorType* other = x ? require_tensor(in, 1, error) : nullptr;
  if (other == nullptr) return std::nullopt;
  Result r = expand_to(*x, other->shape, error);
  if (r) r->shape = other->shape;  // sizes of `other` (symbols included) are the result's
  return r;
}

Result unflatten(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  std::optional<int64_t> dim = indexed_dim(in, *x, "unflatten", error);
  if (!dim) return std::nullopt;
  const TargetSizes target = read_target_sizes(in.sym_ints_attr("sizes"));
  if (target.dims.empty()) {
    *error = "sizes must not be empty";
    return std::nullopt;
  }
  if (target.second_inferred >= 0 || target.negative >= 0) {
    *error = "invalid sizes " + target.text + " (sizes are >= 0, or -1 for one)";
    return std::nullopt;
  }
  if (target.overflow) {
    *error = "sizes " + target.text + " multiply past int64";
    return std::nullopt;
  }
  const Dim have = x->shape[static_cast<size_t>(*dim)];
  const int inferred = target.inferred;
  const int64_t known = target.known;
  Shape sizes = target.dims;
  auto no_fit = [&]() -> Result {
    *error = "sizes " + target.text + " do not multiply to the size " + dim_to_string(have) +
             " of dim " + std::to_string(*dim);
    return std::nullopt;
  };
  if (is_concrete(have) && target.symbols.empty()) {
    const bool fits = inferred >= 0 ? known != 0 && have % known == 0 : known == have;
    if (!fits) return no_fit();
    if (inferred >= 0) sizes[static_cast<size_t>(inferred)] = have / known;
  } else {
    // Symbols on either side: cancel them as a reshape does (target_sizes.h).
    if (certainly_different_count({have}, target)) return no_fit();
    if (inferred >= 0) sizes[static_cast<size_t>(inferred)] = inferred_symbolic_size({have}, target);
  }
  Shape out(x->shape.begin(), x->shape.begin() + *dim);
  out.insert(out.end(), sizes.begin(), sizes.end());
  out.insert(out.end(), x->shape.begin() + *dim + 1, x->shape.end());
  return TensorType{x->dtype, out};
}

Result roll(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  const std::vector<int64_t>& shifts = in.ints_attr("shifts");
  const std::vector<int64_t>& dims = in.ints_attr("dims");
  if (dims.empty() ? shifts.size() != 1 : shifts.size() != dims.size()) {
    *error = "shifts " + ints_to_string(shifts) + " and dims " + ints_to_string(dims) +
             " must have the same length (or dims empty and one shift)";
    return std::nullopt;
  }
  for (int64_t d : dims) {
    if (!wrap_dim(d, x->rank(), error)) return std::nullopt;
  }
  return *x;
}

Result flip(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  const std::vector<int64_t>& dims = in.ints_attr("dims");
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(x->rank(), 1)), false);
  for (int64_t d : dims) {
    std::optional<int64_t> w = wrap_dim(d, x->rank(), error);
    if (!w) return std::nullopt;
    if (seen[static_cast<size_t>(*w)]) {
      *error = "dim " + std::to_string(*w) + " appears more than once in " + ints_to_string(dims);
      return std::nullopt;
    }
    seen[static_cast<size_t>(*w)] = true;
  }
  return *x;
}

Result embedding(const InferInputs& in, std::string* error) {
  const TensorType* indices = require_int64(in, 0, error);
  const TensorType* weight = indices ? require_tensor(in, 1, error) : nullptr;
  if (weight == nullptr) return std::nullopt;
  if (weight->rank() != 2) {
    *error = "weight has shape " + shape_to_string(weight->shape) +
             ", expected 2 dims (num_embeddings, embedding_dim)";
    return std::nullopt;
  }
  Shape out = indices->shape;
  out.push_back(weight->shape[1]);
  return TensorType{weight->dtype, out};
}

Result index_select(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  const TensorType* index = x ? require_int64(in, 1, error) : nullptr;
  if (index == nullptr) return std::nullopt;
  if (index->rank() > 1) {
    *error = "index has shape " + shape_to_string(index->shape) + ", expected 1 dim (or 0)";
    return std::nullopt;
  }
  std::optional<int64_t> dim = wrap_dim(in.int_attr("dim"), x->rank(), error);
  if (!dim) return std::nullopt;
  Shape out = x->shape;
  const Dim count = index->rank() == 0 ? 1 : index->shape[0];
  if (out.empty()) return TensorType{x->dtype, out};  // a 0-d input: the index has one element
  out[static_cast<size_t>(*dim)] = count;
  return TensorType{x->dtype, out};
}

}  // namespace graft::shape_fns
