// Shape functions of the ops that only rearrange elements: flatten, reshape/view, permute,
// transpose, unsqueeze, squeeze and cat. Symbolic dims flow through where torch's rule does
// not need their values (a permuted "N" stays "N"), a reshape's symbolic sizes are its
// result's dims, and other sizes computed from symbols are unknown.
#include <algorithm>

#include "engine/ops/shape_fns.h"
#include "engine/ops/target_sizes.h"
#include "engine/ops/type_promotion.h"

namespace graft::shape_fns {
Result flatten(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  std::optional<int64_t> start = wrap_dim(in.int_attr("start_dim"), x->rank(), error);
  std::optional<int64_t> end = start ? wrap_dim(in.int_attr("end_dim"), x->rank(), error)
                                     : std::nullopt;
  if (!end) return std::nullopt;
  if (*start > *end) {
    *error = "start_dim " + std::to_string(in.int_attr("start_dim")) + " comes after end_dim " +
             std::to_string(in.int_attr("end_dim")) + " for rank " + std::to_string(x->rank());
    return std::nullopt;
  }
  if (x->rank() == 0) return TensorType{x->dtype, {1}};  // torch: a scalar flattens to [1]
  auto first = x->shape.begin() + *start;
  auto last = x->shape.begin() + *end + 1;
  Shape out(x->shape.begin(), first);
  out.push_back(dim_product(Shape(first, last)));
  out.insert(out.end(), last, x->shape.end());
  return TensorType{x->dtype, out};
}

Result reshape(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  const TargetSizes target = read_target_sizes(in.sym_ints_attr("shape"));
  if (target.second_inferred >= 0) {
    *error = "only one dim can be -1 in " + target.text;
    return std::nullopt;
  }
  if (target.negative >= 0) {
    *error = "invalid size " + std::to_string(target.dims[static_cast<size_t>(target.negative)]) +
             " in " + target.text + " (sizes are >= 0, or -1 for one inferred dim)";
    return std::nullopt;
  }
  Shape out = target.dims;
  const int inferred = target.inferred;
  const int64_t known = target.known;
  std::optional<int64_t> count = element_count(x->shape);
  auto mismatch = [&]() -> Result {
    *error = "cannot reshape " + shape_to_string(x->shape) + " (" +
             (count ? std::to_string(*count) : std::string("?")) + " elements) into " +
             target.text +
             (target.overflow ? " (more elements than int64 can count)"
              : inferred < 0 && target.symbols.empty() ? " (" + std::to_string(known) + " elements)"
                                                       : "");
    return std::nullopt;
  };
  if (target.overflow) return mismatch();
  if (inferred >= 0 && known == 0) {
    // Any size would do for the -1 (torch calls it ambiguous) or none would (6 into [0, -1]).
    return mismatch();
  }
  if (!count || !target.symbols.empty()) {
    // Symbolic sizes on either side: trust the target's where the symbols' values decide, and
    // infer the -1 by cancelling symbols (target_sizes.h).
    if (certainly_different_count(x->shape, target)) return mismatch();
    if (inferred >= 0) out[static_cast<size_t>(inferred)] = inferred_symbolic_size(x->shape, target);
    return TensorType{x->dtype, out};
  }
  if (inferred >= 0) {
    if (*count % known != 0) return mismatch();
    out[static_cast<size_t>(inferred)] = *count / known;
  } else if (*count != known) {
    return mismatch();
  }
  return TensorType{x->dtype, out};
}

Result permute(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  const std::vector<int64_t>& dims = in.ints_attr("dims");
  if (static_cast<int64_t>(dims.size()) != x->rank()) {
    *error = "dims " + ints_to_string(dims) + " has " + std::to_string(dims.size()) +
             " entries, the input " + shape_to_string(x->shape) + " has rank " +
             std::to_string(x->rank());
    return std::nullopt;
  }
  Shape out;
  std::vector<bool> used(dims.size(), false);
  for (int64_t dim : dims) {
    std::optional<int64_t> d = wrap_dim(dim, x->rank(), error);
    if (!d) return std::nullopt;
    if (used[static_cast<size_t>(*d)]) {
      *error = "dim " + std::to_string(*d) + " appears more than once in " + ints_to_string(dims);
      return std::nullopt;
    }
    used[static_cast<size_t>(*d)] = true;
    out.push_back(x->shape[static_cast<size_t>(*d)]);
  }
  return TensorType{x->dtype, out};
}

Result transpose(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  std::optional<int64_t> d0 = wrap_dim(in.int_attr("dim0"), x->rank(), error);
  std::optional<int64_t> d1 = d0 ? wrap_dim(in.int_attr("dim1"), x->rank(), error) : std::nullopt;
  if (!d1) return std::nullopt;
  Shape out = x->shape;
  if (x->rank() > 0) std::swap(out[static_cast<size_t>(*d0)], out[static_cast<size_t>(*d1)]);
  return TensorType{x->dtype, out};
}

Result unsqueeze(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  // The new dim may go anywhere in the result, so the range is that of rank + 1.
  std::optional<int64_t> d = wrap_dim(in.int_attr("dim"), x->rank() + 1, error);
  if (!d) return std::nullopt;
  Shape out = x->shape;
  out.insert(out.begin() + *d, 1);
  return TensorType{x->dtype, out};
}

Result squeeze(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  // A symbolic dim is assumed not to be 1: squeezing a batch dim "N" away would make the
  // graph's rank depend on the batch size.
  Shape out;
  const AttrValue& dim = in.attr("dim");
  if (is_none(dim)) {
    std::copy_if(x->shape.begin(), x->shape.end(), std::back_inserter(out),
                 [](Dim d) { return d != 1; });
    return TensorType{x->dtype, out};
  }
  std::optional<int64_t> d = wrap_dim(std::get<int64_t>(dim), x->rank(), error);
  if (!d) return std::nullopt;
  out = x->shape;
  if (x->rank() > 0 && out[static_cast<size_t>(*d)] == 1) out.erase(out.begin() + *d);
  return TensorType{x->dtype, out};
}

Result cat(const InferInputs& in, std::string* error) {
  size_t begin = in.variadic_begin;
  size_t end = in.operand_types.size();
  if (begin >= end) {
    *error = "tensors must not be empty";
    return std::nullopt;
  }
  ResultType dtype;
  const TensorType* first = nullptr;  // the first tensor that takes part in the shape
  for (size_t i = begin; i < end; ++i) {
    const TensorType* t = require_tensor(in, i, error);
    if (t == nullptr) return std::nullopt;
    dtype.add(*t);
    // torch's legacy rule: 1-d empty tensors are skipped whatever the other shapes are.
    bool skipped = t->shape == Shape{0};
    if (!skipped && first == nullptr) first = t;
  }
  if (first == nullptr) return TensorType{*dtype.dtype(), {0}};
  if (first->rank() == 0) {
    *error = "0-d tensors cannot be concatenated";
    return std::nullopt;
  }
  std::optional<int64_t> dim = wrap_dim(in.int_attr("dim"), first->rank(), error);
  if (!dim) return std::nullopt;
  size_t axis = static_cast<size_t>(*dim);
  Shape out = first->shape;
  std::vector<Dim> along;
  for (size_t i = begin; i < end; ++i) {
    const TensorType& t = *in.type(i);
    if (t.shape == Shape{0}) continue;
    if (t.rank() != first->rank()) {
      *error = operand_name(in, i) + " has rank " + std::to_string(t.rank()) + ", expected " +
               std::to_string(first->rank()) + " like the first tensor";
      return std::nullopt;
    }
    for (size_t j = 0; j < out.size(); ++j) {
      if (j == axis) continue;
      if (is_concrete(out[j]) && is_concrete(t.shape[j]) && out[j] != t.shape[j]) {
        *error = operand_name(in, i) + " has shape " + shape_to_string(t.shape) + ", expected " +
                 shape_to_string(out) + " except in dim " + std::to_string(axis);
        return std::nullopt;
      }
      if (!is_concrete(out[j])) out[j] = t.shape[j];  // a concrete size pins the symbol
    }
    along.push_back(t.shape[axis]);
  }
  int64_t total = 0;
  bool concrete = true;
  for (Dim d : along) {
    concrete = concrete && is_concrete(d);
    if (concrete && __builtin_add_overflow(total, d, &total)) {
      *error = "the sizes along dim " + std::to_string(axis) + " add up to more than int64 " +
               "can count";
      return std::nullopt;
    }
  }
  out[axis] = concrete ? total : (along.size() == 1 ? along[0] : unknown_dim());
  return TensorType{*dtype.dtype(), out};
}

}  // namespace graft::shape_fns
