// The semantic facts an op table row declares beside its signature, in graft's own terms so
// that the engine stays free of eval/ and oneDNN: what the op computes (its family and, for an
// elementwise op, its formula and the attributes that parametrise it) and what role each
// operand plays for rule-test synthesis. eval/ and runtime/ key their kernel tables on these
// enums (a switch per table, so -Wswitch makes a missing case a build error); docs/ops.md
// explains how the pieces fit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graft {

/// What an op computes, at the granularity of a kernel: the reference kernels
/// (eval/reference.cpp) and the runtime's kernel builders (runtime/kernel_table.cpp) each map
/// every family to one kernel. Ops of a family differ only in their schema (max vs avg pool).
enum class OpFamily : uint8_t {
  kNone,  // no kernel: a schema built outside the op table
  kConv2d, kConv2dPost, kLinear, kLinearPost, kMatmul,
  kBatchNorm, kLayerNorm, kSoftmax,
  kUnary,   // an elementwise formula of one tensor (OpSchema::formula)
  kBinary,  // an elementwise formula of two operands with broadcasting
  kPool2d, kAdaptivePool2d, kReduce,
  kCat,
  kView,      // the operand's bytes in another shape (reshape, flatten, squeeze, unsqueeze)
  kPermute,   // permute, transpose
  kIdentity,  // contiguous, clone
  kDropout,   // the identity when not training
  // ** spatial ops of issue #27 **
  kInterpolate,  // nearest / bilinear resizing of (N, C, H, W)
  kConvNd,       // conv1d, conv3d (conv2d keeps kConv2d and its fused forms)
  // comparison, selection and dtypes; any dtype in, exact
  kCompare,    // eq, ne, lt, le, gt, ge: compared in the promoted dtype, bool out
  kLogical,    // logical_not, logical_and, logical_or: nonzero is true, bool out
  kWhere,      // where(condition, input, other); masked_fill(input, mask, value)
  kFullLike,   // the input's shape filled with one value
  kCast,       // to: each element converted to another dtype
  kCumsum,     // running sum along a dim
  kArgReduce,  // argmax, argmin: int64 indices
  // ** picking and repeating elements, any dtype (issue #27) **
  kStrided,   // an affine view copied out: slice, select, expand, expand_as, flip
  kRoll,      // roll
  kGather,    // rows picked by an int64 index: embedding, index_select
  kScatter,   // the input with src written into a slice or select of it: slice_scatter, …
  // ** transposed convolution and group normalization (issue #27) **
  kConvTranspose,  // conv_transpose1d, conv_transpose2d, conv_transpose3d
  kGroupNorm,      // group_norm
  // ** padding and 3-D pooling (issue #27) **
  kPad,             // pad: constant, reflect, replicate or circular, any dtype
  kPool3d,          // max_pool3d, avg_pool3d
  kAdaptivePool3d,  // adaptive_avg_pool3d
  // ** sizes that follow a symbol (issue #27) **
  kArange,    // arange: start, start + step, … before end, from no input
  // ** transformers (issue #28) **
  kAttention,  // scaled_dot_product_attention: softmax(q @ k^T * scale + mask) @ v
};

/// True if the kernels of `family`, the reference's and the runtime's alike, take operands and
/// results of any dtype (float32, int64, bool): those that only move elements, and those
/// written per dtype (comparisons, selection, casts, scans), which refuse other dtypes
/// themselves. The others compute in float32, and the compiler and the reference refuse them
/// other dtypes.
bool family_takes_any_dtype(OpFamily family);

/// True if the kernels of `family` only move elements without reading them (views, permutes,
/// cat, strided slices, gathers and scatters), so that they copy elements of any width as they
/// are; a subset of family_takes_any_dtype.
bool family_moves_elements(OpFamily family);

// clang-format off
/// The element formulas of elementwise ops and of the fused ops' activations, one per formula,
/// not per op: hardtanh and clamp share kClamp, div's rounding modes and gelu's approximation
/// each have their own. eval/elementwise_formulas.h defines them; the order groups binary
/// formulas first, then unary ones, activations last.
enum class Formula : uint8_t {
  // binary
  kAdd, kSub, kMul, kDiv, kDivTrunc, kDivFloor, kPow, kMaximum, kMinimum,
  // unary; from kRelu on, also activations
  kSqrt, kRsqrt, kExp, kLog, kNeg, kReciprocal, kAbs, kErf, kSoftplus, kRelu, kRelu6, kClamp,
  kLeakyRelu, kElu, kHardswish, kHardsigmoid, kSilu, kSigmoid, kTanh, kGelu, kGeluTanh,
};
// clang-format on
constexpr size_t kFormulaCount = static_cast<size_t>(Formula::kGeluTanh) + 1;

constexpr bool is_binary(Formula f) { return f <= Formula::kMinimum; }
/// True for the fused ops' activation vocabulary (see fused_activations()).
constexpr bool is_activation(Formula f) { return f >= Formula::kRelu; }

/// One formula parameter read from an attribute: `attr`'s value, or `none_value` when it is
/// None (clamp's missing bound is -inf / inf).
struct FormulaParam {
  std::string attr;  // empty: the parameter is unused (0)
  double none_value = 0;
  int index = -1;    // attr's index in the schema, set by the registry
};

/// A string attribute value that selects another formula (gelu's approximate='tanh').
struct FormulaVariant {
  std::string attr, value;
  Formula formula;
  int index = -1;  // attr's index in the schema, set by the registry
};

/// An elementwise op's formula and where its parameters come from: alpha and beta as the
/// formulas read them (add's alpha, clamp's bounds, leaky_relu's slope, softplus's beta and
/// threshold).
struct ElementwiseFacts {
  Formula formula;
  FormulaParam alpha, beta;
  std::vector<FormulaVariant> variants;
};

/// What an operand is, for rule-test synthesis (ruletest/synthesis_roles.cpp): the shape a
/// test graph gives it when a rule leaves it open, derived from the op's other operands.
enum class OperandRole : uint8_t {
  kElement,        // elementwise: another operand's shape (its trailing dims for a lower rank)
  kPositive,       // elementwise, and positive (sqrt's, log's input)
  kImage,          // a 4-d (N, C, H, W) input
  kSequence,       // a 3-d input (layer_norm's)
  kMatrix,         // a 2-d input (linear's)
  kMatmulInput,    // a 2-d input whose last dim is the other operand's rows
  kConvWeight,     // (O, C/groups, kH, kW) for the input's C
  kLinearWeight,   // (out_features, in_features) for the input's last dim
  kMatmulOther,    // (K) or (K, N) for the input's last dim K
  kOutChannels,    // (O): the weight's dim 0 (a conv's or linear's bias)
  kChannel,        // (C): the input's channel dim 1 (batch_norm's vectors)
  kPositiveChannel,  // (C), positive (batch_norm's running_var)
  kNormalized,     // the normalized_shape attribute's dims (layer_norm's weight and bias)
  kLikeResult,     // the op's result shape (a fused op's residual)
  kScores,         // (…, L, S) for a query (…, L, E) and a key (…, S, E): an attention mask
  kConvInput,      // (N, C, *spatial) with as many spatial dims as the op's stride has items
  kConvTransposeWeight,  // (C, O/groups, k, …) for the input's C: a transposed convolution's
  kTransposedOutChannels,  // (O): a transposed convolution's bias, its weight's dim 1 x groups
};

/// The activation names of the fused ops (conv2d_post's `activation`) and their formulas;
/// 'none' has none. The fused ops' rows, the reference and the runtime read this one list.
struct ActivationName {
  const char* name;
  std::optional<Formula> formula;
};
const std::vector<ActivationName>& fused_activations();
/// The formula of activation `name`; nullopt for 'none'; false in `*known` for a name that
/// is not an activation.
std::optional<Formula> activation_formula(std::string_view name, bool* known);

}  // namespace graft
