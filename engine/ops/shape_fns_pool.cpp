// Shape functions of 2-D pooling, after torch's Pool.h (pooling_output_shape,
// pool2d_shape_check) and AdaptiveAveragePooling.cpp.
#include "engine/ops/shape_fns.h"

namespace graft::shape_fns {
namespace {

/// floor(a / b) for b > 0 (C++ division truncates toward zero).
int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); }

/// torch's pooling_output_shape: with ceil_mode the last window may hang over the end, but it
/// must start inside the input or its left padding. nullopt if a step overflows int64; the
/// callers bound the attributes to int32, so only an input dim near 2^63 can.
std::optional<int64_t> pool_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                                        int64_t dilation, bool ceil_mode) {
  int64_t padded = 0, span = 0, numerator = 0;
  if (__builtin_add_overflow(in, 2 * pad, &padded) ||
      __builtin_sub_overflow(padded, dilation * (kernel - 1) + 1, &numerator) ||
      __builtin_add_overflow(numerator, ceil_mode ? stride - 1 : 0, &numerator) ||
      __builtin_add_overflow(in, pad, &span)) {
    return std::nullopt;
  }
  int64_t out = floor_div(numerator, stride) + 1;
  if (ceil_mode && (out - 1) * stride >= span) --out;
  return out;
}

/// torch's pooling kernels take kernel_size, stride, padding and dilation as 32-bit ints
/// (max_pool2d: "integer out of range"; avg_pool2d wraps them), so larger values are rejected.
/// That bound also keeps pool_output_size's products of two of them within int64.
bool check_int32(const std::string& name, const std::array<int64_t, 2>& values,
                 std::string* error) {
  for (int64_t v : values) {
    if (v > INT32_MAX || v < INT32_MIN) {
      *error = name + "=" + ints_to_string({values[0], values[1]}) +
               " is out of range (torch's pooling takes 32-bit sizes, up to " +
               std::to_string(INT32_MAX) + ")";
      return false;
    }
  }
  return true;
}

/// The input of a 2-D pool: (N, C, H, W) or unbatched (C, H, W), every dim but N non-zero.
bool check_pool_input(const TensorType& x, std::string* error) {
  if (x.rank() != 3 && x.rank() != 4) {
    *error = "input has " + std::to_string(x.rank()) +
             " dims, expected 4 (N, C, H, W) or 3 (C, H, W)";
    return false;
  }
  for (size_t i = x.shape.size() - 3; i < x.shape.size(); ++i) {
    if (x.shape[i] == 0) {
      *error = "input " + shape_to_string(x.shape) + " is empty in dim " + std::to_string(i) +
               " (only the batch dim may be 0)";
      return false;
    }
  }
  return true;
}

/// max_pool2d and avg_pool2d: `has_dilation` is false for avg_pool2d, which has none.
Result pool2d(const InferInputs& in, bool has_dilation, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !check_pool_input(*x, error)) return std::nullopt;
  auto kernel = pair_attr(in, "kernel_size", error);
  if (!kernel) return std::nullopt;
  // stride=[] (torch's None) means "the kernel size".
  auto stride = in.ints_attr("stride").empty() ? kernel : pair_attr(in, "stride", error);
  auto padding = stride ? pair_attr(in, "padding", error) : std::nullopt;
  std::optional<std::array<int64_t, 2>> dilation = std::array<int64_t, 2>{1, 1};
  if (has_dilation && padding) dilation = pair_attr(in, "dilation", error);
  if (!padding || !dilation) return std::nullopt;
  if (!check_int32("kernel_size", *kernel, error) || !check_int32("stride", *stride, error) ||
      !check_int32("padding", *padding, error) || !check_int32("dilation", *dilation, error)) {
    return std::nullopt;
  }
  bool ceil_mode = in.bool_attr("ceil_mode");
  Shape out = x->shape;
  for (size_t i = 0; i < 2; ++i) {
    int64_t k = (*kernel)[i], s = (*stride)[i], p = (*padding)[i], d = (*dilation)[i];
    if (k <= 0 || s <= 0 || d <= 0) {
      *error = "kernel_size, stride and dilation must be positive, got kernel_size=" +
               ints_to_string({(*kernel)[0], (*kernel)[1]}) +
               ", stride=" + ints_to_string({(*stride)[0], (*stride)[1]}) +
               ", dilation=" + ints_to_string({(*dilation)[0], (*dilation)[1]});
      return std::nullopt;
    }
    if (p < 0 || p > k / 2) {
      *error = "padding must be between 0 and half the kernel size, got padding=" +
               ints_to_string({(*padding)[0], (*padding)[1]}) +
               " for kernel_size=" + ints_to_string({(*kernel)[0], (*kernel)[1]});
      return std::nullopt;
    }
    size_t dim = x->shape.size() - 2 + i;
    if (!is_concrete(x->shape[dim])) {
      out[dim] = unknown_dim();
      continue;
    }
    std::optional<int64_t> size = pool_output_size(x->shape[dim], k, s, p, d, ceil_mode);
    if (!size) {
      *error = "input " + shape_to_string(x->shape) + " is too large to pool: its padded size " +
               "overflows int64 in dim " + std::to_string(dim);
      return std::nullopt;
    }
    out[dim] = *size;
    if (out[dim] < 1) {
      *error = "output size is too small: input " + shape_to_string(x->shape) +
               " with kernel_size=" + ints_to_string({(*kernel)[0], (*kernel)[1]}) + " gives " +
               std::to_string(out[dim]) + " along dim " + std::to_string(dim);
      return std::nullopt;
    }
  }
  return TensorType{x->dtype, out};
}

}  // namespace

Result max_pool2d(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error)) return std::nullopt;
  return pool2d(in, /*has_dilation=*/true, error);
}

Result avg_pool2d(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  // torch 1.13's CPU kernel covers the float dtypes and int64 (not int32).
  if (x->dtype != DType::kInt64 && !require_floating(in, 0, *x, error)) return std::nullopt;
  if (const auto* divisor = std::get_if<int64_t>(&in.attr("divisor_override"));
      divisor && *divisor == 0) {
    *error = "divisor_override must not be 0";
    return std::nullopt;
  }
  return pool2d(in, /*has_dilation=*/false, error);
}

Result adaptive_pool2d(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error) || !check_pool_input(*x, error)) {
    return std::nullopt;
  }
  auto size = pair_attr(in, "output_size", error);
  if (!size) return std::nullopt;
  if ((*size)[0] < 0 || (*size)[1] < 0) {
    *error = "output_size must be non-negative, got " + ints_to_string({(*size)[0], (*size)[1]});
    return std::nullopt;
  }
  Shape out = x->shape;
  out[out.size() - 2] = (*size)[0];
  out[out.size() - 1] = (*size)[1];
  return TensorType{x->dtype, out};
}

}  // namespace graft::shape_fns
