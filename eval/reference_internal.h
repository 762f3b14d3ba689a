// Shared pieces of the reference kernels (reference.cpp: elementwise, views and dispatch;
// reference_nn.cpp: convolution, pooling, normalization, matrix products, reductions;
// reference_movement.cpp: data movement on any dtype; reference_logic.cpp and
// reference_scan.cpp: comparisons, selections, casts and scans).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "eval/reference.h"

namespace graft::eval::ref {

/// A node with its operands and checked attribute access for the reference kernels.
struct Call {
  const Node& node;
  const std::vector<RefOperand>& operands;
  std::string* error;

  const Tensor* tensor(size_t i) const {
    return i < operands.size() ? operands[i].tensor : nullptr;
  }
  /// The attribute, or nullptr after setting `error` if the schema lacks it.
  const AttrValue* attr(const std::string& name) const;
  std::optional<int64_t> int_attr(const std::string& name) const;
  std::optional<double> float_attr(const std::string& name, double none_value = 0) const;
  std::optional<bool> bool_attr(const std::string& name) const;
  std::optional<std::string> str_attr(const std::string& name) const;
  /// An int list; None gives an empty list and a single int a one-element list.
  std::optional<std::vector<int64_t>> ints_attr(const std::string& name) const;
  bool fail(const std::string& message) const {
    *error = message;
    return false;
  }
};

using Kernel = bool (*)(const Call& call, Tensor& out);

/// The larger of `a` and `b`, NaN if either is: torch's max pooling and amax propagate NaN,
/// where std::max(a, NaN) gives a.
template <typename T>
T max_propagating_nan(T a, T b) {
  if (a != a) return a;  // NaN already
  return b > a || b != b ? b : a;
}

/// The smaller of `a` and `b`, NaN if either is (amin), as max_propagating_nan.
template <typename T>
T min_propagating_nan(T a, T b) {
  if (a != a) return a;
  return b < a || b != b ? b : a;
}

/// Calls `f` with a null pointer to the unsigned integer type of `dtype`'s element size: the
/// data-movement kernels copy elements as such words, whatever they hold.
template <typename F>
void with_element_type(DType dtype, F&& f) {
  switch (dtype_size(dtype)) {
    case 1: f(static_cast<uint8_t*>(nullptr)); return;
    case 2: f(static_cast<uint16_t*>(nullptr)); return;
    case 4: f(static_cast<uint32_t*>(nullptr)); return;
    default: f(static_cast<uint64_t*>(nullptr)); return;
  }
}

/// Calls row(i, offset, n) for each innermost row of `shape` in row-major order: the row
/// holds the n flat indices from i, and offset is base + index_d * strides[d] summed over the
/// outer dims (a 0-d shape is one row of one element at base). An odometer, so the caller's
/// inner loop runs over whole rows.
template <typename F>
void for_each_strided_row(const Shape& shape, int64_t base, const std::vector<int64_t>& strides,
                          F&& row) {
  int64_t total = 1;
  for (Dim d : shape) total *= d;
  if (total == 0) return;
  const size_t rank = shape.size();
  if (rank == 0) {
    row(int64_t{0}, base, int64_t{1});
    return;
  }
  const int64_t n = shape[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t offset = base;
  for (int64_t i = 0; i < total; i += n) {
    row(i, offset, n);
    for (size_t d = rank - 1; d-- > 0;) {
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

/// out[i_0, …, i_k] = in[base + i_0 * strides[0] + … + i_k * strides[k]] for every output
/// element: the walk of every op that reads its input through an affine view (permute,
/// transpose, slice, select, expand, flip). Strides may be 0 or negative; `in` and `out` have
/// the same dtype.
void strided_copy(const Tensor& in, int64_t base, const std::vector<int64_t>& strides,
                  Tensor& out);
/// The converse: out[base + i_0 * strides[0] + …] = src[i_0, …, i_k] for every element of
/// `src`, the write of slice_scatter and select_scatter. Strides are positive, `src` and `out`
/// have the same dtype.
void strided_write(const Tensor& src, int64_t base, const std::vector<int64_t>& strides,
                   Tensor& out);

/// Row-major strides of `shape`.
std::vector<int64_t> strides_of(const Shape& shape);
/// Applies the named activation (the fused ops' vocabulary) to one value.
std::optional<float> activate(const std::string& name, double alpha, double beta, float x);

// reference_nn.cpp
bool conv2d(const Call& call, Tensor& out);
bool conv2d_post(const Call& call, Tensor& out);
bool linear(const Call& call, Tensor& out);
bool linear_post(const Call& call, Tensor& out);
bool matmul(const Call& call, Tensor& out);
bool batch_norm(const Call& call, Tensor& out);
bool layer_norm(const Call& call, Tensor& out);
bool pool2d(const Call& call, Tensor& out);
bool adaptive_pool2d(const Call& call, Tensor& out);
bool reduce(const Call& call, Tensor& out);
bool softmax(const Call& call, Tensor& out);

// reference_movement.cpp
bool permute(const Call& call, Tensor& out);
bool cat(const Call& call, Tensor& out);

// reference_conv_nd.cpp
bool conv_nd(const Call& call, Tensor& out);
bool conv_transpose(const Call& call, Tensor& out);  // conv_transpose1d/2d/3d
// reference_attention.cpp
bool attention(const Call& call, Tensor& out);  // scaled_dot_product_attention
// reference_group_norm.cpp
bool group_norm(const Call& call, Tensor& out);

// reference_resample.cpp
bool interpolate(const Call& call, Tensor& out);
// reference_logic.cpp: comparisons, logical ops, where and masked_fill, full_like, to
bool compare(const Call& call, Tensor& out);
bool logical(const Call& call, Tensor& out);
bool where(const Call& call, Tensor& out);
bool full_like(const Call& call, Tensor& out);
bool cast(const Call& call, Tensor& out);

// reference_scan.cpp: cumsum, argmax and argmin
bool cumsum(const Call& call, Tensor& out);
bool arg_reduce(const Call& call, Tensor& out);
// reference_indexing.cpp
bool strided(const Call& call, Tensor& out);  // slice, select, expand, expand_as, flip
bool roll(const Call& call, Tensor& out);
bool gather(const Call& call, Tensor& out);   // embedding, index_select
bool scatter(const Call& call, Tensor& out);  // slice_scatter, select_scatter
// reference_pad.cpp
bool pad(const Call& call, Tensor& out);
// reference_pool_nd.cpp: max_pool3d and avg_pool3d; adaptive_avg_pool3d
bool pool_nd(const Call& call, Tensor& out);
bool adaptive_pool_nd(const Call& call, Tensor& out);
// reference_range.cpp
bool arange(const Call& call, Tensor& out);

}  // namespace graft::eval::ref
