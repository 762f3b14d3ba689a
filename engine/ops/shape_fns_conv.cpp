// Shape functions of convolution, transposed convolution and the matrix products (linear,
// matmul, scaled_dot_product_attention), after torch's ConvUtils.h (conv_output_size,
// conv_input_size, check_shape_forward), LinearAlgebra.cpp (matmul) and torch 2.1's
// scaled_dot_product_attention documentation.
#include <algorithm>

#include "engine/ops/shape_fns.h"
#include "engine/ops/shape_infer.h"

namespace graft::shape_fns {
namespace {

bool same_dtype(const InferInputs& in, size_t a, size_t b, std::string* error) {
  const TensorType* ta = in.type(a);
  const TensorType* tb = in.type(b);
  if (ta == nullptr || tb == nullptr || ta->dtype == tb->dtype) return true;
  *error = operand_name(in, b) + " has dtype " + dtype_name(tb->dtype) + " but " +
           operand_name(in, a) + " has " + dtype_name(ta->dtype) + " (they must match)";
  return false;
}

bool differ(Dim a, Dim b) { return is_concrete(a) && is_concrete(b) && a != b; }

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation;  // one value per spatial dim
  int64_t groups;
};

/// An `int[k]` attribute as its k values; nullopt after setting `error` otherwise.
std::optional<std::vector<int64_t>> spatial_attr(const InferInputs& in, const std::string& name,
                                                 size_t k, std::string* error) {
  const auto* list = std::get_if<std::vector<int64_t>>(&in.attr(name));
  if (list == nullptr || list->size() != k) {
    *error = name + " must have " + std::to_string(k) + " values, got " +
             attr_to_string(in.attr(name));
    return std::nullopt;
  }
  return *list;
}

/// The attributes of a convolution over `k` spatial dims, after torch's checks: stride > 0,
/// padding >= 0, dilation > 0, groups > 0.
std::optional<ConvParams> conv_params(const InferInputs& in, size_t k, std::string* error) {
  auto stride = spatial_attr(in, "stride", k, error);
  auto padding = stride ? spatial_attr(in, "padding", k, error) : std::nullopt;
  auto dilation = padding ? spatial_attr(in, "dilation", k, error) : std::nullopt;
  if (!dilation) return std::nullopt;
  for (size_t i = 0; i < k; ++i) {
    if ((*stride)[i] <= 0 || (*dilation)[i] <= 0 || (*padding)[i] < 0) {
      *error = "stride and dilation must be positive and padding non-negative, got stride=" +
               ints_to_string(*stride) + ", padding=" + ints_to_string(*padding) +
               ", dilation=" + ints_to_string(*dilation);
      return std::nullopt;
    }
  }
  int64_t groups = in.int_attr("groups");
  if (groups < 1) {
    *error = "groups must be positive, got " + std::to_string(groups);
    return std::nullopt;
  }
  return ConvParams{*stride, *padding, *dilation, groups};
}

/// The kernel dims of weight (O, C/groups, k...).
Shape kernel_of(const TensorType& w) { return Shape(w.shape.begin() + 2, w.shape.end()); }

/// torch's check_shape_forward on the weight (O, C/groups, k...) and bias against the input
/// whose channels are dim `c`: a kernel of at least 1 in each dim, at least `groups` output
/// channels that groups divides, and C == weight channels * groups.
bool check_conv_weight(const InferInputs& in, const TensorType& x, const TensorType& w,
                       int64_t groups, size_t c, std::string* error) {
  for (size_t i = 2; i < w.shape.size(); ++i) {
    if (is_concrete(w.shape[i]) && w.shape[i] < 1) {
      *error = "weight " + shape_to_string(w.shape) + " has the kernel size " +
               shape_to_string(kernel_of(w)) + ", expected at least 1 in each dim";
      return false;
    }
  }
  Dim out_channels = w.shape[0];
  if (is_concrete(out_channels) && out_channels < groups) {
    *error = "weight has " + std::to_string(out_channels) +
             " output channels, expected at least groups=" + std::to_string(groups);
    return false;
  }
  if (is_concrete(out_channels) && out_channels % groups != 0) {
    *error = "weight has " + std::to_string(out_channels) +
             " output channels, which groups=" + std::to_string(groups) + " does not divide";
    return false;
  }
  int64_t channels = 0;
  bool overflow =
      is_concrete(w.shape[1]) && __builtin_mul_overflow(w.shape[1], groups, &channels);
  if (overflow || (is_concrete(w.shape[1]) && differ(x.shape[c], channels))) {
    *error = "input has " + dim_to_string(x.shape[c]) + " channels, weight " +
             shape_to_string(w.shape) + " with groups=" + std::to_string(groups) + " expects " +
             (overflow ? "more than int64 can count" : std::to_string(channels));
    return false;
  }
  if (const TensorType* bias = in.type(2);
      bias && (bias->rank() != 1 || differ(bias->shape[0], out_channels))) {
    *error = "bias has shape " + shape_to_string(bias->shape) + ", expected [" +
             dim_to_string(out_channels) + "] (the weight's output channels)";
    return false;
  }
  return true;
}

/// torch's conv_output_size for spatial dim `d` of the input: (size + 2 * padding -
/// (dilation * (kernel - 1) + 1)) / stride + 1, with every step checked for int64 overflow
/// (torch wraps around there and returns a wrong size). nullopt after setting `error`.
std::optional<Dim> conv_output_dim(const TensorType& x, const TensorType& w, size_t d,
                                   const ConvParams& p, std::string* error) {
  size_t i = d - (x.shape.size() - p.stride.size());  // index among the spatial dims
  Dim size = x.shape[d];
  Dim kernel = w.shape[2 + i];
  if (!is_concrete(size) || !is_concrete(kernel)) return unknown_dim();
  int64_t padded = 0, extent = 0;
  if (__builtin_mul_overflow(p.padding[i], 2, &padded) ||
      __builtin_add_overflow(padded, size, &padded)) {
    *error = "padding=" + ints_to_string(p.padding) +
             " is out of range: the padded input overflows int64 in dim " + std::to_string(d);
    return std::nullopt;
  }
  // The dilated kernel's span; kernel >= 1 was checked.
  if (__builtin_mul_overflow(p.dilation[i], kernel - 1, &extent) ||
      __builtin_add_overflow(extent, 1, &extent)) {
    *error = "dilation=" + ints_to_string(p.dilation) +
             " is out of range: the dilated kernel " + shape_to_string(kernel_of(w)) +
             " overflows int64 in dim " + std::to_string(d);
    return std::nullopt;
  }
  if (padded < extent) {
    *error = "kernel " + shape_to_string(kernel_of(w)) + " with dilation " +
             ints_to_string(p.dilation) + " spans " + std::to_string(extent) +
             " but the padded input has " + std::to_string(padded) + " along dim " +
             std::to_string(d) + " of " + shape_to_string(x.shape);
    return std::nullopt;
  }
  return (padded - extent) / p.stride[i] + 1;
}

/// The names of a convolution's input and weight dims over `k` spatial dims, for messages.
struct ConvDims {
  const char* input;   // "(N, C, H, W)"
  const char* weight;  // "kH, kW"
};
ConvDims conv_dims(size_t k) {
  if (k == 1) return {"(N, C, L)", "kL"};
  if (k == 3) return {"(N, C, D, H, W)", "kD, kH, kW"};
  return {"(N, C, H, W)", "kH, kW"};
}

/// The ranks and dtypes of a convolution's input (batched or not), weight and bias over `k`
/// spatial dims; `channels` names the weight's first two dims for messages.
bool check_conv_operands(const InferInputs& in, const TensorType& x, const TensorType& w,
                         size_t k, const char* channels, std::string* error) {
  const ConvDims names = conv_dims(k);
  const auto rank = static_cast<size_t>(x.rank());
  if (rank != k + 2 && rank != k + 1) {
    std::string unbatched = "(" + std::string(names.input + 4);  // drop "(N, "
    *error = "input has " + std::to_string(x.rank()) + " dims, expected " +
             std::to_string(k + 2) + " " + names.input + " or " + std::to_string(k + 1) + " " +
             unbatched;
    return false;
  }
  if (static_cast<size_t>(w.rank()) != k + 2) {
    *error = "weight has " + std::to_string(w.rank()) + " dims, expected " +
             std::to_string(k + 2) + " (" + channels + ", " + names.weight + ")";
    return false;
  }
  return same_dtype(in, 0, 1, error) && same_dtype(in, 0, 2, error);
}

/// conv1d, conv2d and conv3d over `k` spatial dims; torch also accepts an unbatched input
/// (C, spatial...) and then returns (O, spatial'...).
Result conv_nd(const InferInputs& in, size_t k, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  const TensorType* w = x ? require_tensor(in, 1, error) : nullptr;
  if (w == nullptr ||
      !check_conv_operands(in, *x, *w, k, "out_channels, in_channels/groups", error)) {
    return std::nullopt;
  }
  std::optional<ConvParams> params = conv_params(in, k, error);
  size_t c = x->shape.size() - k - 1;  // channel dim of the input
  if (!params || !check_conv_weight(in, *x, *w, params->groups, c, error)) return std::nullopt;
  Shape out = x->shape;
  out[c] = w->shape[0];
  for (size_t d = c + 1; d < out.size(); ++d) {
    std::optional<Dim> size = conv_output_dim(*x, *w, d, *params, error);
    if (!size) return std::nullopt;
    out[d] = *size;
  }
  return TensorType{x->dtype, out};
}

// ** transposed convolution **

/// torch's checks on a transposed convolution's weight (C, O/groups, k...) and bias against
/// the input whose channels are dim `c`: groups divides C, the input has C channels, the bias
/// has O = weight.shape[1] * groups values.
bool check_transposed_weight(const InferInputs& in, const TensorType& x, const TensorType& w,
                             int64_t groups, size_t c, std::string* error) {
  for (size_t i = 2; i < w.shape.size(); ++i) {
    if (is_concrete(w.shape[i]) && w.shape[i] < 1) {
      *error = "weight " + shape_to_string(w.shape) + " has the kernel size " +
               shape_to_string(kernel_of(w)) + ", expected at least 1 in each dim";
      return false;
    }
  }
  const Dim in_channels = w.shape[0];
  if (is_concrete(in_channels) && in_channels % groups != 0) {
    *error = "weight has " + std::to_string(in_channels) +
             " input channels (dim 0), which groups=" + std::to_string(groups) +
             " does not divide";
    return false;
  }
  if (differ(x.shape[c], in_channels)) {
    *error = "input has " + dim_to_string(x.shape[c]) + " channels, weight " +
             shape_to_string(w.shape) + " expects " + dim_to_string(in_channels) +
             " (its dim 0)";
    return false;
  }
  int64_t out_channels = 0;
  const bool known = is_concrete(w.shape[1]);
  if (known && __builtin_mul_overflow(w.shape[1], groups, &out_channels)) {
    *error = "weight " + shape_to_string(w.shape) + " with groups=" + std::to_string(groups) +
             " has more output channels than int64 can count";
    return false;
  }
  if (const TensorType* bias = in.type(2);
      bias && (bias->rank() != 1 || (known && differ(bias->shape[0], out_channels)))) {
    *error = "bias has shape " + shape_to_string(bias->shape) + ", expected [" +
             (known ? std::to_string(out_channels) : std::string("?")) +
             "] (the weight's dim 1 times groups)";
    return false;
  }
  return true;
}

/// torch's transposed output size for spatial dim `d`: (size - 1) * stride - 2 * padding +
/// dilation * (kernel - 1) + output_padding + 1, every step checked for int64 overflow; at
/// least 1. nullopt after setting `error`.
std::optional<Dim> transposed_output_dim(const TensorType& x, const TensorType& w, size_t d,
                                         const ConvParams& p,
                                         const std::vector<int64_t>& output_padding,
                                         std::string* error) {
  const size_t i = d - (x.shape.size() - p.stride.size());
  const Dim size = x.shape[d];
  const Dim kernel = w.shape[2 + i];
  if (!is_concrete(size) || !is_concrete(kernel)) return unknown_dim();
  int64_t out = 0, extent = 0, padded = 0;
  bool overflow = __builtin_mul_overflow(size - 1, p.stride[i], &out) ||
                  __builtin_mul_overflow(p.dilation[i], kernel - 1, &extent) ||
                  __builtin_add_overflow(out, extent, &out) ||
                  __builtin_add_overflow(out, output_padding[i] + 1, &out) ||
                  __builtin_mul_overflow(p.padding[i], 2, &padded) ||
                  __builtin_sub_overflow(out, padded, &out);
  if (overflow) {
    *error = "stride, dilation and output_padding are out of range: the output overflows "
             "int64 in dim " + std::to_string(d);
    return std::nullopt;
  }
  if (out < 1) {
    *error = "the output would have " + std::to_string(out) + " elements along dim " +
             std::to_string(d) + " of " + shape_to_string(x.shape) + " (padding=" +
             ints_to_string(p.padding) + " removes more than the kernel adds)";
    return std::nullopt;
  }
  return out;
}

/// conv_transpose1d/2d/3d over `k` spatial dims, unbatched (C, spatial...) input included.
Result conv_transpose_nd(const InferInputs& in, size_t k, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  const TensorType* w = x ? require_tensor(in, 1, error) : nullptr;
  if (w == nullptr ||
      !check_conv_operands(in, *x, *w, k, "in_channels, out_channels/groups", error)) {
    return std::nullopt;
  }
  std::optional<ConvParams> params = conv_params(in, k, error);
  auto output_padding = params ? spatial_attr(in, "output_padding", k, error) : std::nullopt;
  if (!output_padding) return std::nullopt;
  for (size_t i = 0; i < k; ++i) {
    const int64_t op = (*output_padding)[i];
    if (op < 0 || (op >= params->stride[i] && op >= params->dilation[i])) {
      *error = "output_padding must be non-negative and smaller than the stride or the "
               "dilation, got output_padding=" + ints_to_string(*output_padding) + ", stride=" +
               ints_to_string(params->stride) + ", dilation=" + ints_to_string(params->dilation);
      return std::nullopt;
    }
  }
  const size_t c = x->shape.size() - k - 1;
  if (!check_transposed_weight(in, *x, *w, params->groups, c, error)) return std::nullopt;
  Shape out = x->shape;
  out[c] = is_concrete(w->shape[1]) ? w->shape[1] * params->groups : unknown_dim();
  for (size_t d = c + 1; d < out.size(); ++d) {
    std::optional<Dim> size = transposed_output_dim(*x, *w, d, *params, *output_padding, error);
    if (!size) return std::nullopt;
    out[d] = *size;
  }
  return TensorType{x->dtype, out};
}

}  // namespace

Result conv1d(const InferInputs& in, std::string* error) { return conv_nd(in, 1, error); }
Result conv2d(const InferInputs& in, std::string* error) { return conv_nd(in, 2, error); }
Result conv3d(const InferInputs& in, std::string* error) { return conv_nd(in, 3, error); }
Result conv_transpose1d(const InferInputs& in, std::string* error) {
  return conv_transpose_nd(in, 1, error);
}
Result conv_transpose2d(const InferInputs& in, std::string* error) {
  return conv_transpose_nd(in, 2, error);
}
Result conv_transpose3d(const InferInputs& in, std::string* error) {
  return conv_transpose_nd(in, 3, error);
}

Result linear(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  const TensorType* w = x ? require_tensor(in, 1, error) : nullptr;
  if (w == nullptr) return std::nullopt;
  if (x->rank() < 1) {
    *error = "input is 0-d, expected at least 1 dim (…, in_features)";
    return std::nullopt;
  }
  // torch.nn.functional.linear is input @ weight.T (+ bias): a 1-d weight is a vector.
  if (w->rank() != 2 && w->rank() != 1) {
    *error = "weight has " + std::to_string(w->rank()) +
             " dims, expected 2 (out_features, in_features)";
    return std::nullopt;
  }
  if (!same_dtype(in, 0, 1, error) || !same_dtype(in, 0, 2, error)) return std::nullopt;
  if (differ(x->shape.back(), w->shape.back())) {
    *error = "input has " + dim_to_string(x->shape.back()) + " features (last dim of " +
             shape_to_string(x->shape) + "), weight " + shape_to_string(w->shape) + " expects " +
             dim_to_string(w->shape.back());
    return std::nullopt;
  }
  Shape out(x->shape.begin(), x->shape.end() - 1);
  if (w->rank() == 2) out.push_back(w->shape[0]);
  if (const TensorType* bias = in.type(2)) {
    // The bias is added with broadcasting, so [1] or [out_features] both work.
    std::optional<Shape> sum = broadcast_shapes(out, bias->shape);
    if (!sum || sum->size() != out.size() ||
        !std::equal(sum->begin(), sum->end(), out.begin(),
                    [](Dim a, Dim b) { return !differ(a, b); })) {
      *error = "bias has shape " + shape_to_string(bias->shape) +
               ", which does not broadcast to the result " + shape_to_string(out);
      return std::nullopt;
    }
  }
  return TensorType{x->dtype, out};
}

Result matmul(const InferInputs& in, std::string* error) {
  const TensorType* a = require_tensor(in, 0, error);
  const TensorType* b = a ? require_tensor(in, 1, error) : nullptr;
  if (b == nullptr) return std::nullopt;
  if (a->rank() == 0 || b->rank() == 0) {
    *error = "both operands need at least 1 dim, got shapes " + shape_to_string(a->shape) +
             " and " + shape_to_string(b->shape);
    return std::nullopt;
  }
  if (!same_dtype(in, 0, 1, error)) return std::nullopt;
  // torch.matmul: a 1-d left operand is a row vector (a 1 is prepended, then removed), a 1-d
  // right operand a column vector; the dims before the last two broadcast.
  Shape lhs = a->shape;
  Shape rhs = b->shape;
  if (lhs.size() == 1) lhs.insert(lhs.begin(), 1);
  if (rhs.size() == 1) rhs.push_back(1);
  Dim k_lhs = lhs.back();
  Dim k_rhs = rhs[rhs.size() - 2];
  if (differ(k_lhs, k_rhs)) {
    *error = "cannot multiply " + shape_to_string(a->shape) + " by " + shape_to_string(b->shape) +
             " (contracted dims " + dim_to_string(k_lhs) + " and " + dim_to_string(k_rhs) +
             " differ)";
    return std::nullopt;
  }
  Shape batch_lhs(lhs.begin(), lhs.end() - 2);
  Shape batch_rhs(rhs.begin(), rhs.end() - 2);
  std::optional<Shape> out = broadcast_shapes(batch_lhs, batch_rhs);
  if (!out) {
    *error = "batch dims " + shape_to_string(batch_lhs) + " and " + shape_to_string(batch_rhs) +
             " cannot be broadcast";
    return std::nullopt;
  }
  if (a->rank() > 1) out->push_back(lhs[lhs.size() - 2]);
  if (b->rank() > 1) out->push_back(rhs.back());
  return TensorType{a->dtype, *out};
}

}  // namespace graft::shape_fns

namespace graft::shape_fns {

Result scaled_dot_product_attention(const InferInputs& in, std::string* error) {
  const TensorType* q = require_tensor(in, 0, error);
  const TensorType* k = q ? require_tensor(in, 1, error) : nullptr;
  const TensorType* v = k ? require_tensor(in, 2, error) : nullptr;
  if (v == nullptr || !require_floating(in, 0, *q, error)) return std::nullopt;
  if (!same_dtype(in, 0, 1, error) || !same_dtype(in, 0, 2, error)) return std::nullopt;
  if (q->rank() < 2 || k->rank() < 2 || v->rank() < 2) {
    *error = "query, key and value need at least 2 dims (…, L, E), got shapes " +
             shape_to_string(q->shape) + ", " + shape_to_string(k->shape) + " and " +
             shape_to_string(v->shape);
    return std::nullopt;
  }
  const Dim l = q->shape[q->rank() - 2], e = q->shape.back();
  const Dim s = k->shape[k->rank() - 2];
  if (differ(k->shape.back(), e) || differ(v->shape[v->rank() - 2], s)) {
    *error = "key must be (…, S, E) and value (…, S, Ev) for a query (…, L, E), got shapes " +
             shape_to_string(q->shape) + ", " + shape_to_string(k->shape) + " and " +
             shape_to_string(v->shape);
    return std::nullopt;
  }
  // q @ k^T, then @ v: torch.matmul's batch broadcasting.
  std::optional<Shape> batch = broadcast_shapes(Shape(q->shape.begin(), q->shape.end() - 2),
                                                Shape(k->shape.begin(), k->shape.end() - 2));
  if (batch) batch = broadcast_shapes(*batch, Shape(v->shape.begin(), v->shape.end() - 2));
  if (!batch) {
    *error = "the batch dims of " + shape_to_string(q->shape) + ", " + shape_to_string(k->shape) +
             " and " + shape_to_string(v->shape) + " cannot be broadcast";
    return std::nullopt;
  }
  if (const TensorType* mask = in.type(3)) {
    if (mask->dtype != DType::kBool && mask->dtype != q->dtype) {
      *error = "attn_mask has dtype " + std::string(dtype_name(mask->dtype)) +
               ", expected bool or the query's " + dtype_name(q->dtype);
      return std::nullopt;
    }
    Shape scores = *batch;
    scores.push_back(l);
    scores.push_back(s);
    std::optional<Shape> with_mask = broadcast_shapes(scores, mask->shape);
    if (!with_mask || *with_mask != scores) {
      *error = "attn_mask of shape " + shape_to_string(mask->shape) +
               " does not broadcast to the scores' shape " + shape_to_string(scores);
      return std::nullopt;
    }
    if (in.bool_attr("is_causal")) {
      *error = "attn_mask and is_causal=True exclude each other";
      return std::nullopt;
    }
  }
  Shape out = *batch;
  out.push_back(l);
  out.push_back(v->shape.back());
  return TensorType{q->dtype, out};
}

}  // namespace graft::shape_fns
