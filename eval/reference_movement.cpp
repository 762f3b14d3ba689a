// Reference kernels, part 3: data movement on any dtype (permute, transpose, cat). They copy
// whole elements of the operand's element size and never look at their values, so float32,
// int64 and bool share one loop; constant folding of int64 index tensors is exact.
#include <cstring>

#include "eval/reference_internal.h"

namespace graft::eval::ref {

void strided_copy(const Tensor& in, int64_t base, const std::vector<int64_t>& strides,
                  Tensor& out) {
  with_element_type(out.dtype(), [&](auto* out_data) {
    using T = std::remove_pointer_t<decltype(out_data)>;
    const T* src = static_cast<const T*>(in.data());
    T* dst = static_cast<T*>(out.data());
    const int64_t step = strides.empty() ? 0 : strides.back();
    for_each_strided_row(out.shape(), base, strides, [&](int64_t i, int64_t offset, int64_t n) {
      for (int64_t k = 0; k < n; ++k) dst[i + k] = src[offset + k * step];
    });
  });
}

void strided_write(const Tensor& src, int64_t base, const std::vector<int64_t>& strides,
                   Tensor& out) {
  with_element_type(out.dtype(), [&](auto* out_data) {
    using T = std::remove_pointer_t<decltype(out_data)>;
    const T* from = static_cast<const T*>(src.data());
    T* dst = static_cast<T*>(out.data());
    const int64_t step = strides.empty() ? 0 : strides.back();
    for_each_strided_row(src.shape(), base, strides, [&](int64_t i, int64_t offset, int64_t n) {
      for (int64_t k = 0; k < n; ++k) dst[offset + k * step] = from[i + k];
    });
  });
}

bool permute(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  if (!x) return call.fail("input must be a tensor");
  const auto rank = static_cast<int64_t>(x->shape().size());
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  auto norm = [&](int64_t d) { return d < 0 ? d + rank : d; };
  if (call.node.target() == "permute") {
    auto dims = call.ints_attr("dims");
    if (!dims) return false;
    for (size_t i = 0; i < perm.size() && i < dims->size(); ++i) perm[i] = norm((*dims)[i]);
  } else {
    auto d0 = call.int_attr("dim0");
    auto d1 = call.int_attr("dim1");
    if (!d0 || !d1) return false;
    if (rank > 0) std::swap(perm[static_cast<size_t>(norm(*d0))], perm[static_cast<size_t>(norm(*d1))]);
  }
  std::vector<int64_t> in_strides = strides_of(x->shape());
  std::vector<int64_t> strides(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    if (perm[d] < 0 || perm[d] >= rank) return call.fail("dims must be a permutation");
    strides[d] = in_strides[static_cast<size_t>(perm[d])];
  }
  strided_copy(*x, 0, strides, out);
  return true;
}

bool cat(const Call& call, Tensor& out) {
  auto dim = call.int_attr("dim");
  if (!dim) return false;
  const auto rank = static_cast<int64_t>(out.shape().size());
  const int64_t axis = *dim < 0 ? *dim + rank : *dim;
  if (axis < 0 || axis >= rank) return call.fail("dim out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out.shape()[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= out.shape()[static_cast<size_t>(d)];
  const size_t size = dtype_size(out.dtype());
  const int64_t total = out.shape()[static_cast<size_t>(axis)];
  int64_t offset = 0;  // position along the axis where the current piece starts
  for (size_t t = 0; t < call.operands.size(); ++t) {
    const Tensor* x = call.tensor(t);
    if (!x) return call.fail("cat needs tensors");
    if (x->dtype() != out.dtype()) return call.fail("cat of mixed dtypes is not implemented");
    const int64_t n = x->numel() == 0 ? 0 : x->shape()[static_cast<size_t>(axis)];
    // Each (outer, piece) block is contiguous in both tensors: one memcpy of n * inner elements.
    const auto block = static_cast<size_t>(n * inner) * size;
    for (int64_t o = 0; o < outer && block > 0; ++o) {
      std::memcpy(static_cast<char*>(out.data()) + static_cast<size_t>((o * total + offset) * inner) * size,
                  static_cast<const char*>(x->data()) + static_cast<size_t>(o * n * inner) * size,
                  block);
    }
    offset += n;
  }
  return true;
}

}  // namespace graft::eval::ref
