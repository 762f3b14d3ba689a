// Reference kernels that walk one dim of the input: cumsum (a running sum) and argmax/argmin
// (the index of the extreme), on float32, int64 and bool inputs, with torch's rules: cumsum
// accumulates float32 in double and integers in int64 (wrapping, as torch's does), and
// argmax/argmin give the first index of the extreme, a NaN counting as beyond every number.
#include "eval/element_cast.h"
#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

/// The input seen as [outer, n, inner] around `dim` (the whole input as n when `dim` is None).
struct Lanes {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t at(int64_t o, int64_t j, int64_t i) const { return (o * n + j) * inner + i; }
};

Lanes lanes_of(const Shape& shape, std::optional<int64_t> dim) {
  Lanes l;
  const auto rank = static_cast<int64_t>(shape.size());
  if (!dim || rank == 0) {
    for (Dim d : shape) l.n *= d;
    return l;
  }
  int64_t axis = *dim < 0 ? *dim + rank : *dim;
  l.n = shape[static_cast<size_t>(axis)];
  for (int64_t d = 0; d < axis; ++d) l.outer *= shape[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) l.inner *= shape[static_cast<size_t>(d)];
  return l;
}

/// True if `v` should replace `best` as argmax (or argmin with `min`): strictly beyond it, or
/// the first NaN.
template <typename T>
bool beats(T v, T best, bool min) {
  if constexpr (std::is_floating_point_v<T>) {
    if (best != best) return false;
    if (v != v) return true;
  }
  return min ? v < best : v > best;
}

template <typename T>
void arg_extreme(const Tensor& x, const Lanes& l, bool min, Tensor& out) {
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.inner; ++i) {
      int64_t best = 0;
      T best_value = read_as<T>(x, l.at(o, 0, i));
      for (int64_t j = 1; j < l.n; ++j) {
        T v = read_as<T>(x, l.at(o, j, i));
        if (beats(v, best_value, min)) {
          best = j;
          best_value = v;
        }
      }
      write_as<int64_t>(out, o * l.inner + i, best);
    }
  }
}

}  // namespace

bool cumsum(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  auto dim = call.int_attr("dim");
  if (!x || !dim) return false;
  if (!is_cast_dtype(x->dtype()) || !is_cast_dtype(out.dtype())) {
    return call.fail("cumsum computes on float32, int64 and bool only");
  }
  Lanes l = lanes_of(x->shape(), dim);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.inner; ++i) {
      if (out.dtype() == DType::kFloat32) {
        double sum = 0;  // torch's CPU accumulation type for float
        for (int64_t j = 0; j < l.n; ++j) {
          sum += read_as<float>(*x, l.at(o, j, i));
          write_as<float>(out, l.at(o, j, i), static_cast<float>(sum));
        }
      } else {
        uint64_t sum = 0;  // int64 addition that wraps instead of overflowing
        for (int64_t j = 0; j < l.n; ++j) {
          sum += static_cast<uint64_t>(read_as<int64_t>(*x, l.at(o, j, i)));
          write_as<int64_t>(out, l.at(o, j, i), static_cast<int64_t>(sum));
        }
      }
    }
  }
  return true;
}

bool arg_reduce(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const AttrValue* dim_attr = call.attr("dim");
  if (!x || !dim_attr) return false;
  std::optional<int64_t> dim;
  if (const auto* d = std::get_if<int64_t>(dim_attr)) dim = *d;
  Lanes l = lanes_of(x->shape(), dim);
  if (out.dtype() != DType::kInt64) return call.fail("the result must be int64");
  if (l.n == 0) {
    if (l.outer * l.inner == 0) return true;  // an empty result: nothing to index
    return call.fail("there is no index into an empty dim");
  }
  const bool min = call.node.target() == "argmin";
  switch (x->dtype()) {
    case DType::kFloat32: arg_extreme<float>(*x, l, min, out); return true;
    case DType::kInt64: arg_extreme<int64_t>(*x, l, min, out); return true;
    default: return call.fail(call.node.target() + " computes on float32 and int64 only");
  }
}

}  // namespace graft::eval::ref
