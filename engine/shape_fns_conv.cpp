// Shape functions of convolution and the matrix products (linear, matmul), after torch's
// ConvUtils.h (conv_output_size, check_shape_forward) and LinearAlgebra.cpp (matmul).
#include <algorithm>

#include "engine/shape_fns.h"
#include "engine/shape_infer.h"

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

/// Checks stride > 0, padding >= 0, dilation > 0 and returns them.
std::optional<std::array<std::array<int64_t, 2>, 3>> conv_params(const InferInputs& in,
                                                                 std::string* error) {
  auto stride = pair_attr(in, "stride", error);
  auto padding = stride ? pair_attr(in, "padding", error) : std::nullopt;
  auto dilation = padding ? pair_attr(in, "dilation", error) : std::nullopt;
  if (!dilation) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    if ((*stride)[i] <= 0 || (*dilation)[i] <= 0 || (*padding)[i] < 0) {
      *error = "stride and dilation must be positive and padding non-negative, got stride=" +
               ints_to_string({(*stride)[0], (*stride)[1]}) +
               ", padding=" + ints_to_string({(*padding)[0], (*padding)[1]}) +
               ", dilation=" + ints_to_string({(*dilation)[0], (*dilation)[1]});
      return std::nullopt;
    }
  }
  return std::array<std::array<int64_t, 2>, 3>{*stride, *padding, *dilation};
}

}  // namespace

Result conv2d(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  const TensorType* w = x ? require_tensor(in, 1, error) : nullptr;
  if (w == nullptr) return std::nullopt;
  // torch accepts an unbatched (C, H, W) input and then returns (O, H', W').
  if (x->rank() != 4 && x->rank() != 3) {
    *error = "input has " + std::to_string(x->rank()) +
             " dims, expected 4 (N, C, H, W) or 3 (C, H, W)";
    return std::nullopt;
  }
  if (w->rank() != 4) {
    *error = "weight has " + std::to_string(w->rank()) +
             " dims, expected 4 (out_channels, in_channels/groups, kH, kW)";
    return std::nullopt;
  }
  if (!same_dtype(in, 0, 1, error) || !same_dtype(in, 0, 2, error)) return std::nullopt;
  auto params = conv_params(in, error);
  if (!params) return std::nullopt;
  auto [stride, padding, dilation] = *params;
  int64_t groups = in.int_attr("groups");
  size_t c = x->shape.size() - 3;  // channel dim of the input
  Dim out_channels = w->shape[0];
  if (groups < 1) {
    *error = "groups must be positive, got " + std::to_string(groups);
    return std::nullopt;
  }
  if (is_concrete(out_channels) && out_channels % groups != 0) {
    *error = "weight has " + std::to_string(out_channels) +
             " output channels, which groups=" + std::to_string(groups) + " does not divide";
    return std::nullopt;
  }
  if (is_concrete(w->shape[1]) && differ(x->shape[c], w->shape[1] * groups)) {
    *error = "input has " + dim_to_string(x->shape[c]) + " channels, weight " +
             shape_to_string(w->shape) + " with groups=" + std::to_string(groups) + " expects " +
             std::to_string(w->shape[1] * groups);
    return std::nullopt;
  }
  if (const TensorType* bias = in.type(2);
      bias && (bias->rank() != 1 || differ(bias->shape[0], out_channels))) {
    *error = "bias has shape " + shape_to_string(bias->shape) + ", expected [" +
             dim_to_string(out_channels) + "] (the weight's output channels)";
    return std::nullopt;
  }
  Shape out = x->shape;
  out[c] = out_channels;
  for (size_t i = 0; i < 2; ++i) {
    Dim size = x->shape[c + 1 + i];
    Dim kernel = w->shape[2 + i];
    if (!is_concrete(size) || !is_concrete(kernel)) {
      out[c + 1 + i] = unknown_dim();
      continue;
    }
    int64_t padded = size + 2 * padding[i];
    int64_t extent = dilation[i] * (kernel - 1) + 1;  // the dilated kernel's span
    if (padded < extent) {
      *error = "kernel " + shape_to_string({w->shape[2], w->shape[3]}) + " with dilation " +
               ints_to_string({dilation[0], dilation[1]}) + " spans " + std::to_string(extent) +
               " but the padded input has " + std::to_string(padded) + " along dim " +
               std::to_string(c + 1 + i) + " of " + shape_to_string(x->shape);
      return std::nullopt;
    }
    out[c + 1 + i] = (padded - extent) / stride[i] + 1;
  }
  return TensorType{x->dtype, out};
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
