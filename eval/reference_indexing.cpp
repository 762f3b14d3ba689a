// Reference kernels, part 4: ops that pick or repeat elements by position, on any dtype.
// slice, select, expand, expand_as and flip read the input through an affine view (a base
// offset and a stride per output dim, 0 to repeat, negative to reverse) and copy it out with
// strided_copy; slice_scatter and select_scatter copy the input and write src through the
// same view of slice or select; roll and the int64-indexed embedding and index_select have
// their own loops. Every loop is bounded by the output's elements.
#include <cstring>
#include <string>

#include "engine/ops/slice_bounds.h"
#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

/// The dim attribute `name` made non-negative for rank `rank`, or nullopt after failing.
std::optional<int64_t> dim_attr(const Call& call, const std::string& name, int64_t rank) {
  auto d = call.int_attr(name);
  if (!d) return std::nullopt;
  const int64_t w = *d < 0 ? *d + rank : *d;
  if (w < 0 || w >= rank) {
    call.fail(name + " " + std::to_string(*d) + " out of range for rank " + std::to_string(rank));
    return std::nullopt;
  }
  return w;
}

/// An `int?` attribute: nullopt for None (no failure).
std::optional<int64_t> optional_int(const Call& call, const std::string& name) {
  const AttrValue* v = call.attr(name);
  if (v == nullptr) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(v)) return *i;
  return std::nullopt;
}

/// The affine view slice or select take of a tensor: where it starts, a stride per dim of
/// the view, and the view's shape.
struct View {
  int64_t base = 0;
  std::vector<int64_t> strides;
  Shape shape;
};

/// The view slice (`select` false: dim, start, end, step) or select (dim, index) takes of a
/// row-major tensor of shape `in_shape`, from the call's attributes; nullopt after failing.
std::optional<View> slice_view(const Call& call, const Shape& in_shape, bool select) {
  auto dim = dim_attr(call, "dim", static_cast<int64_t>(in_shape.size()));
  if (!dim) return std::nullopt;
  const auto d = static_cast<size_t>(*dim);
  View v{0, strides_of(in_shape), in_shape};
  if (!select) {
    auto step = call.int_attr("step");
    if (!step) return std::nullopt;
    if (*step <= 0) {
      call.fail("step must be positive");
      return std::nullopt;
    }
    auto [start, end] = slice_bounds(optional_int(call, "start"), optional_int(call, "end"), in_shape[d]);
    if (start < end) v.base = start * v.strides[d];  // an empty slice reads nothing
    v.strides[d] *= *step;
    v.shape[d] = start == end ? 0 : (end - start - 1) / *step + 1;
    return v;
  }
  auto index = call.int_attr("index");
  if (!index) return std::nullopt;
  const int64_t i = *index < 0 ? *index + in_shape[d] : *index;
  if (i < 0 || i >= in_shape[d]) {
    call.fail("index out of range");
    return std::nullopt;
  }
  v.base = i * v.strides[d];
  v.strides.erase(v.strides.begin() + *dim);
  v.shape.erase(v.shape.begin() + *dim);
  return v;
}

}  // namespace

bool strided(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  if (!x || x->dtype() != out.dtype()) return call.fail("input must be a tensor of the result's dtype");
  const Shape& in_shape = x->shape();
  const auto rank = static_cast<int64_t>(in_shape.size());
  std::vector<int64_t> strides = strides_of(in_shape);
  int64_t base = 0;
  const std::string& op = call.node.target();
  if (op == "slice" || op == "select") {
    std::optional<View> view = slice_view(call, in_shape, op == "select");
    if (!view) return false;
    base = view->base;
    strides = std::move(view->strides);
  } else if (op == "flip") {
    auto dims = call.ints_attr("dims");
    if (!dims) return false;
    for (int64_t dim : *dims) {
      const int64_t w = dim < 0 ? dim + rank : dim;
      if (w < 0 || w >= rank) return call.fail("dim out of range");
      const auto d = static_cast<size_t>(w);
      if (in_shape[d] > 0) base += (in_shape[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
  } else {  // expand, expand_as: new leading dims and broadcast size-1 dims read stride 0
    const Shape& to = out.shape();
    if (to.size() < in_shape.size()) return call.fail("cannot expand to a lower rank");
    const size_t lead = to.size() - in_shape.size();
    std::vector<int64_t> expanded(to.size(), 0);
    for (size_t i = lead; i < to.size(); ++i) {
      const Dim have = in_shape[i - lead];
      if (have != to[i] && have != 1) return call.fail("cannot expand " + shape_to_string(in_shape));
      expanded[i] = have == to[i] ? strides[i - lead] : 0;
    }
    strides = std::move(expanded);
  }
  if (strides.size() != out.shape().size()) return call.fail("result rank does not match");
  strided_copy(*x, base, strides, out);
  return true;
}

bool roll(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  if (!x || x->dtype() != out.dtype() || x->shape() != out.shape()) {
    return call.fail("input must be a tensor of the result's type");
  }
  auto shifts = call.ints_attr("shifts");
  auto dims = call.ints_attr("dims");
  if (!shifts || !dims) return false;
  // dims=[] rolls the flattened tensor: one dim of numel elements.
  Shape shape = dims->empty() ? Shape{x->numel()} : x->shape();
  std::vector<int64_t> roll_dims = dims->empty() ? std::vector<int64_t>{0} : *dims;
  if (roll_dims.size() != shifts->size()) return call.fail("shifts and dims differ in length");
  const auto rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> shift(shape.size(), 0);  // per dim, in [0, size)
  for (size_t k = 0; k < roll_dims.size(); ++k) {
    const int64_t w = roll_dims[k] < 0 ? roll_dims[k] + rank : roll_dims[k];
    if (w < 0 || w >= rank) return call.fail("dim out of range");
    const int64_t n = shape[static_cast<size_t>(w)];
    if (n > 0) {
      auto& s = shift[static_cast<size_t>(w)];
      s = (s + ((*shifts)[k] % n + n) % n) % n;  // each term in [0, n): no overflow
    }
  }
  const std::vector<int64_t> strides = strides_of(shape);
  with_element_type(out.dtype(), [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    const T* src = static_cast<const T*>(x->data());
    T* dst = static_cast<T*>(out.data());
    // out[i] = in[i - shift] per dim, wrapping.
    for (int64_t i = 0; i < out.numel(); ++i) {
      int64_t from = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        const int64_t idx = i / strides[d] % shape[d];
        const int64_t src_idx = idx >= shift[d] ? idx - shift[d] : idx - shift[d] + shape[d];
        from += src_idx * strides[d];
      }
      dst[i] = src[from];
    }
  });
  return true;
}

bool gather(const Call& call, Tensor& out) {
  // embedding(indices, weight) is index_select(weight, 0, indices) with the indices' shape.
  const bool embedding = call.node.target() == "embedding";
  const Tensor* x = call.tensor(embedding ? 1 : 0);
  const Tensor* index = call.tensor(embedding ? 0 : 1);
  if (!x || !index || index->dtype() != DType::kInt64 || x->dtype() != out.dtype()) {
    return call.fail("expected a tensor and an int64 index");
  }
  const auto rank = static_cast<int64_t>(x->shape().size());
  int64_t dim = 0;
  if (!embedding && rank > 0) {
    auto d = dim_attr(call, "dim", rank);
    if (!d) return false;
    dim = *d;
  }
  int64_t outer = 1, inner = 1;
  const int64_t n = rank == 0 ? 1 : x->shape()[static_cast<size_t>(dim)];
  for (int64_t d = 0; d < dim; ++d) outer *= x->shape()[static_cast<size_t>(d)];
  for (int64_t d = dim + 1; d < rank; ++d) inner *= x->shape()[static_cast<size_t>(d)];
  const int64_t count = index->numel();
  if (outer * count * inner != out.numel()) return call.fail("result size does not match");
  for (int64_t j = 0; j < count; ++j) {
    const int64_t k = index->i64()[j];
    if (k < 0 || k >= n) {
      return call.fail("index " + std::to_string(k) + " is out of range for " +
                       (embedding ? "the " + std::to_string(n) + " rows of the weight"
                                  : "dim " + std::to_string(dim) + " of size " + std::to_string(n)));
    }
  }
  with_element_type(out.dtype(), [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    const T* src = static_cast<const T*>(x->data());
    T* dst = static_cast<T*>(out.data());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < count; ++j) {
        const T* row = src + (o * n + index->i64()[j]) * inner;
        T* to = dst + (o * count + j) * inner;
        for (int64_t i = 0; i < inner; ++i) to[i] = row[i];
      }
    }
  });
  return true;
}

bool scatter(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* src = call.tensor(1);
  if (!x || !src || x->dtype() != out.dtype() || src->dtype() != out.dtype() ||
      x->shape() != out.shape()) {
    return call.fail("input and src must be tensors of the result's dtype");
  }
  std::optional<View> view = slice_view(call, x->shape(), call.node.target() == "select_scatter");
  if (!view) return false;
  if (view->shape != src->shape()) {
    return call.fail("src has shape " + shape_to_string(src->shape()) + ", expected " +
                     shape_to_string(view->shape));
  }
  // The runtime may hand the input's own buffer as the result.
  if (out.data() != x->data() && out.nbytes() > 0) std::memcpy(out.data(), x->data(), out.nbytes());
  strided_write(*src, view->base, view->strides, out);
  return true;
}

}  // namespace graft::eval::ref
