// Shape functions of 2-D and 3-D pooling, after torch's Pool.h (pooling_output_shape,
// pool2d_shape_check, pool3d_shape_check), AdaptiveAveragePooling.cpp and
// AdaptiveAveragePooling3d.cpp.
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

using Spatial = std::vector<int64_t>;

/// An `int[n]` attribute of a pool with n spatial dims; nullopt after setting `error`.
std::optional<Spatial> spatial_attr(const InferInputs& in, const std::string& name, size_t n,
                                    std::string* error) {
  const auto* list = std::get_if<std::vector<int64_t>>(&in.attr(name));
  if (list == nullptr || list->size() != n) {
    *error = name + " must have " + std::to_string(n) + " values, got " +
             attr_to_string(in.attr(name));
    return std::nullopt;
  }
  return *list;
}

/// torch's pooling kernels take kernel_size, stride, padding and dilation as 32-bit ints
/// (max_pool2d: "integer out of range"; avg_pool2d wraps them), so larger values are rejected.
/// That bound also keeps pool_output_size's products of two of them within int64.
bool check_int32(const std::string& name, const Spatial& values, std::string* error) {
  for (int64_t v : values) {
    if (v > INT32_MAX || v < INT32_MIN) {
      *error = name + "=" + ints_to_string(values) +
               " is out of range (torch's pooling takes 32-bit sizes, up to " +
               std::to_string(INT32_MAX) + ")";
      return false;
    }
  }
  return true;
}

/// The input of a pool over n spatial dims: (N, C, *spatial) or unbatched (C, *spatial), every
/// dim but N non-zero.
bool check_pool_input(const TensorType& x, size_t n, std::string* error) {
  if (x.shape.size() != n + 1 && x.shape.size() != n + 2) {
    const char* dims = n == 3 ? "D, H, W" : "H, W";
    *error = "input has " + std::to_string(x.rank()) + " dims, expected " +
             std::to_string(n + 2) + " (N, C, " + dims + ") or " + std::to_string(n + 1) +
             " (C, " + dims + ")";
    return false;
  }
  for (size_t i = x.shape.size() - n - 1; i < x.shape.size(); ++i) {
    if (x.shape[i] == 0) {
      *error = "input " + shape_to_string(x.shape) + " is empty in dim " + std::to_string(i) +
               " (only the batch dim may be 0)";
      return false;
    }
  }
  return true;
}

/// The pool's window attributes over n spatial dims; dilation is all 1 when `has_dilation` is
/// false (avg_pool), stride=[] (torch's None) is the kernel size.
struct PoolWindow {
  Spatial kernel, stride, padding, dilation;
};

std::optional<PoolWindow> pool_window(const InferInputs& in, size_t n, bool has_dilation,
                                      std::string* error) {
  auto kernel = spatial_attr(in, "kernel_size", n, error);
  if (!kernel) return std::nullopt;
  auto stride = in.ints_attr("stride").empty() ? kernel : spatial_attr(in, "stride", n, error);
  auto padding = stride ? spatial_attr(in, "padding", n, error) : std::nullopt;
  std::optional<Spatial> dilation = Spatial(n, 1);
  if (has_dilation && padding) dilation = spatial_attr(in, "dilation", n, error);
  if (!padding || !dilation) return std::nullopt;
  if (!check_int32("kernel_size", *kernel, error) || !check_int32("stride", *stride, error) ||
      !check_int32("padding", *padding, error) || !check_int32("dilation", *dilation, error)) {
    return std::nullopt;
  }
  for (size_t i = 0; i < n; ++i) {
    if ((*kernel)[i] <= 0 || (*stride)[i] <= 0 || (*dilation)[i] <= 0) {
      *error = "kernel_size, stride and dilation must be positive, got kernel_size=" +
               ints_to_string(*kernel) + ", stride=" + ints_to_string(*stride) +
               ", dilation=" + ints_to_string(*dilation);
      return std::nullopt;
    }
    if ((*padding)[i] < 0 || (*padding)[i] > (*kernel)[i] / 2) {
      *error = "padding must be between 0 and half the kernel size, got padding=" +
               ints_to_string(*padding) + " for kernel_size=" + ints_to_string(*kernel);
      return std::nullopt;
    }
  }
  return PoolWindow{*kernel, *stride, *padding, *dilation};
}

/// max_pool and avg_pool over n spatial dims: `has_dilation` is false for avg_pool.
Result pool_nd(const InferInputs& in, size_t n, bool has_dilation, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !check_pool_input(*x, n, error)) return std::nullopt;
  std::optional<PoolWindow> w = pool_window(in, n, has_dilation, error);
  if (!w) return std::nullopt;
  bool ceil_mode = in.bool_attr("ceil_mode");
  Shape out = x->shape;
  for (size_t i = 0; i < n; ++i) {
    size_t dim = x->shape.size() - n + i;
    if (!is_concrete(x->shape[dim])) {
      out[dim] = unknown_dim();
      continue;
    }
    std::optional<int64_t> size = pool_output_size(x->shape[dim], w->kernel[i], w->stride[i],
                                                   w->padding[i], w->dilation[i], ceil_mode);
    if (!size) {
      *error = "input " + shape_to_string(x->shape) + " is too large to pool: its padded size " +
               "overflows int64 in dim " + std::to_string(dim);
      return std::nullopt;
    }
    out[dim] = *size;
    if (out[dim] < 1) {
      *error = "output size is too small: input " + shape_to_string(x->shape) +
               " with kernel_size=" + ints_to_string(w->kernel) + " gives " +
               std::to_string(out[dim]) + " along dim " + std::to_string(dim);
      return std::nullopt;
    }
  }
  return TensorType{x->dtype, out};
}

Result max_pool_nd(const InferInputs& in, size_t n, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error)) return std::nullopt;
  return pool_nd(in, n, /*has_dilation=*/true, error);
}

Result avg_pool_nd(const InferInputs& in, size_t n, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  // torch 1.13's CPU kernel covers the float dtypes and int64 (not int32).
  if (x->dtype != DType::kInt64 && !require_floating(in, 0, *x, error)) return std::nullopt;
  if (const auto* divisor = std::get_if<int64_t>(&in.attr("divisor_override"));
      divisor && *divisor == 0) {
    *error = "divisor_override must not be 0";
    return std::nullopt;
  }
  return pool_nd(in, n, /*has_dilation=*/false, error);
}

Result adaptive_pool_nd(const InferInputs& in, size_t n, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error) || !check_pool_input(*x, n, error)) {
    return std::nullopt;
  }
  auto size = spatial_attr(in, "output_size", n, error);
  if (!size) return std::nullopt;
  for (int64_t s : *size) {
    if (s < 0) {
      *error = "output_size must be non-negative, got " + ints_to_string(*size);
      return std::nullopt;
    }
  }
  Shape out = x->shape;
  for (size_t i = 0; i < n; ++i) out[out.size() - n + i] = (*size)[i];
  return TensorType{x->dtype, out};
}

}  // namespace

Result max_pool2d(const InferInputs& in, std::string* error) { return max_pool_nd(in, 2, error); }
Result avg_pool2d(const InferInputs& in, std::string* error) { return avg_pool_nd(in, 2, error); }
Result adaptive_pool2d(const InferInputs& in, std::string* error) {
  return adaptive_pool_nd(in, 2, error);
}
Result max_pool3d(const InferInputs& in, std::string* error) { return max_pool_nd(in, 3, error); }
Result avg_pool3d(const InferInputs& in, std::string* error) { return avg_pool_nd(in, 3, error); }
Result adaptive_pool3d(const InferInputs& in, std::string* error) {
  return adaptive_pool_nd(in, 3, error);
}

}  // namespace graft::shape_fns
