// Fused ops: what the runtime's fusion rules (rules/fuse_post_ops.rules) rewrite torch ops into,
// e.g. a convolution with a post-op activation and a residual add. They are ordinary registry
// ops so rules can produce them and the verifier and printers understand them; the runtime
// executes each as one oneDNN primitive with post-ops.
//
// Semantics of both ops, in torch terms:
//   y = conv2d(input, weight, bias, …)            (or linear(input, weight, bias))
//   y = activation(y)                              ('none' skips it)
//   y = y + residual                               (when residual is given: oneDNN's sum post-op)
//   y = post_activation(y)                         (ResNet's relu after the add)
// Activation parameters: leaky_relu's slope is `alpha`; hardtanh/clamp clip to [alpha, beta];
// elu's alpha is `alpha`; the others take none. fused_activations() names each activation's
// formula (op_facts.h), which the reference and the runtime compute.
#include <string>
#include <vector>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_fns.h"

namespace graft {
namespace {

/// Checks that the residual has the result's shape (oneDNN's sum post-op adds elementwise
/// without broadcasting).
std::optional<TensorType> finish_post(const InferInputs& in, TensorType out, std::string* error) {
  const TensorType* residual = in.type(3);
  if (residual && residual->shape != out.shape) {
    *error = "residual has shape " + shape_to_string(residual->shape) + ", expected " +
             shape_to_string(out.shape) + " (the result's shape)";
    return std::nullopt;
  }
  return out;
}

// The convolution and linear parts are torch's, so their shape functions check them; the fused
// ops only narrow what the runtime's primitives take (4-d input, 2-d weight).
std::optional<TensorType> conv2d_post_shape(const InferInputs& in, std::string* error) {
  const TensorType* x = in.type(0);
  const TensorType* w = in.type(1);
  if (x == nullptr || w == nullptr || x->rank() != 4 || w->rank() != 4) {
    *error = "input and weight must be 4-d tensors (N, C, H, W) and (O, I/groups, kH, kW)";
    return std::nullopt;
  }
  std::optional<TensorType> out = shape_fns::conv2d(in, error);
  if (!out) return std::nullopt;
  return finish_post(in, std::move(*out), error);
}

std::optional<TensorType> linear_post_shape(const InferInputs& in, std::string* error) {
  const TensorType* x = in.type(0);
  const TensorType* w = in.type(1);
  if (x == nullptr || w == nullptr || x->rank() < 1 || w->rank() != 2) {
    *error = "input must be a tensor and weight a 2-d (out_features, in_features) tensor";
    return std::nullopt;
  }
  std::optional<TensorType> out = shape_fns::linear(in, error);
  if (!out) return std::nullopt;
  return finish_post(in, std::move(*out), error);
}

}  // namespace

const std::vector<ActivationName>& fused_activations() {
  using enum Formula;
  static const std::vector<ActivationName> names = {
      {"none", std::nullopt}, {"relu", kRelu},       {"leaky_relu", kLeakyRelu},
      {"relu6", kRelu6},      {"hardtanh", kClamp},  {"clamp", kClamp},
      {"elu", kElu},          {"hardswish", kHardswish}, {"hardsigmoid", kHardsigmoid},
      {"silu", kSilu},        {"sigmoid", kSigmoid}, {"tanh", kTanh},
      {"gelu", kGelu},        {"gelu_tanh", kGeluTanh}};
  return names;
}

std::optional<Formula> activation_formula(std::string_view name, bool* known) {
  for (const ActivationName& a : fused_activations()) {
    if (a.name == name) {
      *known = true;
      return a.formula;
    }
  }
  *known = false;
  return std::nullopt;
}

std::vector<OpDef> fused_op_defs() {
  std::vector<OpDef> defs = {
      // ** fused convolution and linear (oneDNN post-ops) **
      {"conv2d_post(Tensor input, Tensor weight, Tensor? bias=None, Tensor? residual=None, "
       "int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1, "
       "str activation='none', float alpha=0.0, float beta=0.0, "
       "str post_activation='none', float post_alpha=0.0, float post_beta=0.0)",
       {"fused"}, conv2d_post_shape,
       "post_activation(activation(conv2d(input, weight, bias)) + residual), one primitive",
       {OpFamily::kConv2dPost,
        std::nullopt,
        {OperandRole::kImage, OperandRole::kConvWeight, OperandRole::kOutChannels,
         OperandRole::kLikeResult}}},
      {"linear_post(Tensor input, Tensor weight, Tensor? bias=None, Tensor? residual=None, "
       "str activation='none', float alpha=0.0, float beta=0.0, "
       "str post_activation='none', float post_alpha=0.0, float post_beta=0.0)",
       {"fused"}, linear_post_shape,
       "post_activation(activation(linear(input, weight, bias)) + residual), one primitive",
       {OpFamily::kLinearPost,
        std::nullopt,
        {OperandRole::kMatrix, OperandRole::kLinearWeight, OperandRole::kOutChannels,
         OperandRole::kLikeResult}}},
  };
  // The activation and post_activation names (AttrSpec::choices: loading, rules and the
  // rewriter reject others).
  std::vector<std::string> activations;
  for (const ActivationName& a : fused_activations()) activations.emplace_back(a.name);
  for (OpDef& def : defs) {
    def.choices = {{"activation", activations}, {"post_activation", activations}};
  }
  return defs;
}

}  // namespace graft
