// The op table: one row per op — its signature in torch.nn.functional's terms, its op classes,
// its shape function and a one-line doc. This is the single source of truth for the loader,
// the rules compiler, shape inference and the runtime. Shape functions follow the table.
#include <string>

#include "engine/op_registry.h"
#include "engine/shape_infer.h"

namespace graft {
namespace {

// ** shape functions **

std::optional<TensorType> same_as_input(const InferInputs& in, std::string* error) {
  const TensorType* x = in.type(0);
  if (x == nullptr) {
    *error = "input must be a tensor";
    return std::nullopt;
  }
  return *x;
}

std::optional<TensorType> broadcast_binary(const InferInputs& in, std::string* error) {
  const TensorType* a = in.type(0);
  const TensorType* b = in.type(1);
  if (a == nullptr && b == nullptr) {
    *error = "at least one operand must be a tensor";
    return std::nullopt;
  }
  if (a == nullptr) return *b;
  if (b == nullptr) return *a;
  std::optional<Shape> shape = broadcast_shapes(a->shape, b->shape);
  if (!shape) {
    *error = "shapes " + shape_to_string(a->shape) + " and " + shape_to_string(b->shape) +
             " cannot be broadcast";
    return std::nullopt;
  }
  return TensorType{a->dtype, *shape};
}

std::optional<TensorType> conv2d_shape(const InferInputs& in, std::string* error) {
  const TensorType* x = in.type(0);
  const TensorType* w = in.type(1);
  if (x->rank() != 4) {
    *error = "input has " + std::to_string(x->rank()) + " dims, expected 4 (N, C, H, W)";
    return std::nullopt;
  }
  if (w->rank() != 4) {
    *error = "weight has " + std::to_string(w->rank()) + " dims, expected 4 (O, I/groups, kH, kW)";
    return std::nullopt;
  }
  int64_t groups = in.int_attr("groups");
  if (groups < 1) {
    *error = "groups must be positive, got " + std::to_string(groups);
    return std::nullopt;
  }
  if (is_concrete(x->shape[1]) && is_concrete(w->shape[1]) && x->shape[1] != w->shape[1] * groups) {
    *error = "input has " + dim_to_string(x->shape[1]) + " channels, weight expects " +
             std::to_string(w->shape[1] * groups);
    return std::nullopt;
  }
  const auto& stride = in.ints_attr("stride");
  const auto& padding = in.ints_attr("padding");
  const auto& dilation = in.ints_attr("dilation");
  Shape out = {x->shape[0], w->shape[0], 0, 0};
  for (int i = 0; i < 2; ++i) {
    std::optional<Dim> size = window_output_size(x->shape[2 + i], w->shape[2 + i], stride[i],
                                                 padding[i], dilation[i], false);
    if (!size) {
      *error = "kernel " + shape_to_string({w->shape[2], w->shape[3]}) +
               " does not fit the padded input " + shape_to_string({x->shape[2], x->shape[3]});
      return std::nullopt;
    }
    out[2 + i] = *size;
  }
  return TensorType{x->dtype, out};
}

}  // namespace

std::vector<OpDef> builtin_op_defs() {
  return {
      // ** convolution **
      {"conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
       "int[2] dilation=1, int groups=1)",
       {"conv"}, conv2d_shape, "2-D convolution (torch.nn.functional.conv2d)"},

      // ** activations **
      {"relu(Tensor input)", {"activation", "unary", "elementwise"}, same_as_input,
       "max(x, 0)"},

      // ** binary elementwise **
      {"add(Tensor|Scalar input, Tensor|Scalar other, Scalar alpha=1)", {"binary", "elementwise"},
       broadcast_binary, "input + alpha * other", /*commutative=*/true},
      {"mul(Tensor|Scalar input, Tensor|Scalar other)", {"binary", "elementwise"},
       broadcast_binary, "input * other", /*commutative=*/true},
  };
}

}  // namespace graft
