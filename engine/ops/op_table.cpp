// The op table: one row per torch op — its signature in torch's terms (PyTorch 1.13's
// torch.nn.functional or torch function, same parameter names, order and defaults), its op
// classes, its shape function (engine/shape_fns_*.cpp), a one-line doc and its semantic facts
// (op_facts.h: family, elementwise formula, operand roles). This is the single source of truth
// for the loader, the rules compiler, shape inference, the reference kernels, the runtime and
// rule-test synthesis; the fused ops that rules produce are in op_table_fused.cpp.
//
// Torch parameters that mean nothing to a graph are left out, each noted at its row:
// `inplace` (graft's graphs are functional), `out`, `return_indices` (graft's pools return one
// tensor), `dtype` (a cast belongs in its own node) and `memory_format`.
//
// Op classes, usable in rules:
//   conv           convolution
//   matmul         matrix products (linear, matmul, scaled_dot_product_attention)
//   activation     the pointwise nonlinearities a conv or linear can fuse as a post-op
//   unary          one tensor in, same shape out, elementwise
//   binary         two operands, broadcasting, elementwise
//   elementwise    unary or binary
//   pool           spatial pooling
//   reduction      reduces dims (mean, sum, amax)
//   normalization  batch_norm, layer_norm, softmax, log_softmax
//   shape          rearranges or relabels elements without computing (reshape, permute, …)
//   no_op          the identity at inference time (contiguous, clone); dropout is the
//                  identity only with training=False, so it is not in this class
#include <cmath>
#include <string>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_fns.h"

namespace graft {
namespace {

using enum Formula;
using enum OpFamily;
using enum OperandRole;

OpFacts family(OpFamily f, std::vector<OperandRole> roles = {}) {
  return {f, std::nullopt, std::move(roles)};
}
OpFacts unary(Formula f, FormulaParam alpha = {}, FormulaParam beta = {},
              std::vector<FormulaVariant> variants = {}) {
  return {kUnary, ElementwiseFacts{f, std::move(alpha), std::move(beta), std::move(variants)}};
}
/// A unary op defined for positive inputs only (sqrt, log): synthesis makes them positive.
OpFacts positive(Formula f) {
  OpFacts facts = unary(f);
  facts.roles = {kPositive};
  return facts;
}
/// `alpha` is 1 where the op has no alpha attribute, as add's default.
OpFacts binary(Formula f, FormulaParam alpha = {"", 1}, std::vector<FormulaVariant> variants = {}) {
  return {kBinary, ElementwiseFacts{f, std::move(alpha), {}, std::move(variants)}};
}

/// `def` with the values its `str` attributes accept.
OpDef with_choices(OpDef def, std::vector<StrChoices> choices) {
  def.choices = std::move(choices);
  return def;
}

}  // namespace

std::vector<OpDef> builtin_op_defs() {
  using namespace shape_fns;  // NOLINT: the table reads better with bare function names
  const std::vector<std::string> kActivationClasses = {"activation", "unary", "elementwise"};
  const std::vector<std::string> kUnaryClasses = {"unary", "elementwise"};
  const std::vector<std::string> kBinaryClasses = {"binary", "elementwise"};
  return {
      // ** convolution and matrix products **
      // torch also accepts padding='same'/'valid'; exporters write the numbers.
      {"conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
       "int[2] dilation=1, int groups=1)",
       {"conv"}, conv2d,
       "2-D convolution over (N, C, H, W) or (C, H, W); weight is (O, C/groups, kH, kW)",
       family(kConv2d, {kImage, kConvWeight, kOutChannels})},
      {"linear(Tensor input, Tensor weight, Tensor? bias=None)", {"matmul"}, linear,
       "input @ weight.T + bias; weight is (out_features, in_features)",
       family(kLinear, {kMatrix, kLinearWeight, kOutChannels})},
      {"matmul(Tensor input, Tensor other)", {"matmul"}, matmul,  // `out` dropped
       "matrix product with torch.matmul's 1-d and batch broadcasting rules",
       family(kMatmul, {kMatmulInput, kMatmulOther})},
      // torch 2.1's F.scaled_dot_product_attention; a bool attn_mask is True where a query
      // may attend. dropout_p must be 0 (it drops at random even in eval mode). mask_fill is
      // graft's: the score a bool or causal mask gives a hidden key, so that code filling with
      // a finite value (-1e9, finfo.min) keeps its function on a row masked everywhere.
      {"scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
       "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, float? scale=None, "
       "float mask_fill=-inf)",
       {"matmul"}, scaled_dot_product_attention,
       "softmax(query @ key.transpose(-2, -1) * scale + mask, -1) @ value; scale defaults to "
       "1 / sqrt(E), is_causal masks key j > query i, a masked score is mask_fill",
       family(kAttention, {kSequence, kElement, kElement, kScores})},

      // ** normalization **
      // `momentum` only matters when training; it stays so that fx's positional calls bind.
      {"batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, "
       "Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05)",
       {"normalization"}, batch_norm,
       "(input - running_mean) / sqrt(running_var + eps) * weight + bias over channel dim 1",
       family(kBatchNorm, {kImage, kChannel, kPositiveChannel, kChannel, kChannel})},
      {"layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
       "float eps=1e-05)",
       {"normalization"}, layer_norm,
       "normalizes over the trailing normalized_shape dims, then * weight + bias",
       family(kLayerNorm, {kSequence, kNormalized, kNormalized})},
      // `dtype` dropped (softmax, log_softmax); torch's implicit dim is deprecated, so dim is
      // required.
      {"softmax(Tensor input, int dim)", {"normalization"}, softmax,
       "exp(input) / sum(exp(input), dim)", family(kSoftmax)},
      {"log_softmax(Tensor input, int dim)", {"normalization"}, softmax,
       "log(softmax(input, dim))", family(kSoftmax)},

      // ** activations ** `inplace` dropped from every row that has it.
      {"relu(Tensor input)", kActivationClasses, same_dtype_no_bool, "max(input, 0)", unary(kRelu)},
      {"relu6(Tensor input)", kActivationClasses, same_dtype_no_bool, "min(max(input, 0), 6)",
       unary(kRelu6)},
      {"hardtanh(Tensor input, float min_val=-1.0, float max_val=1.0)", kActivationClasses,
       same_dtype_no_bool, "min(max(input, min_val), max_val)",
       unary(kClamp, {"min_val"}, {"max_val"})},
      {"leaky_relu(Tensor input, float negative_slope=0.01)", kActivationClasses, floating_only,
       "input if input >= 0 else negative_slope * input", unary(kLeakyRelu, {"negative_slope"})},
      {"elu(Tensor input, float alpha=1.0)", kActivationClasses, floating_only,
       "input if input > 0 else alpha * (exp(input) - 1)", unary(kElu, {"alpha"})},
      {"hardswish(Tensor input)", kActivationClasses, floating_only, "input * relu6(input + 3) / 6",
       unary(kHardswish)},
      {"hardsigmoid(Tensor input)", kActivationClasses, floating_only, "relu6(input + 3) / 6",
       unary(kHardsigmoid)},
      {"silu(Tensor input)", kActivationClasses, floating_only, "input * sigmoid(input) (swish)",
       unary(kSilu)},
      {"sigmoid(Tensor input)", kActivationClasses, to_floating, "1 / (1 + exp(-input))",
       unary(kSigmoid)},
      {"gelu(Tensor input, str approximate='none')", kActivationClasses, gelu,
       "input * Phi(input); approximate='tanh' uses the tanh formula",
       unary(kGelu, {}, {}, {{"approximate", "tanh", kGeluTanh}})},
      {"tanh(Tensor input)", kActivationClasses, to_floating, "hyperbolic tangent", unary(kTanh)},
      {"softplus(Tensor input, float beta=1.0, float threshold=20.0)", kUnaryClasses, floating_only,
       "log(1 + exp(beta * input)) / beta, linear above threshold",
       unary(kSoftplus, {"beta"}, {"threshold"})},

      // ** unary math ** (what constant folding needs; `out` dropped)
      {"sqrt(Tensor input)", kUnaryClasses, to_floating, "square root", positive(kSqrt)},
      {"rsqrt(Tensor input)", kUnaryClasses, to_floating, "1 / sqrt(input)", positive(kRsqrt)},
      {"exp(Tensor input)", kUnaryClasses, to_floating, "e ** input", unary(kExp)},
      {"log(Tensor input)", kUnaryClasses, to_floating, "natural logarithm", positive(kLog)},
      {"neg(Tensor input)", kUnaryClasses, same_dtype_no_bool, "-input", unary(kNeg)},
      {"reciprocal(Tensor input)", kUnaryClasses, to_floating, "1 / input", positive(kReciprocal)},
      {"abs(Tensor input)", kUnaryClasses, same_dtype_no_bool, "|input|", unary(kAbs)},
      {"erf(Tensor input)", kUnaryClasses, to_floating, "the error function", unary(kErf)},
      // Scalar, not float, so that clamp(int64 tensor, min=0) stays int64 as in torch.
      {"clamp(Tensor input, Scalar? min=None, Scalar? max=None)", kUnaryClasses, clamp,
       "min(max(input, min), max); at least one bound is given",
       unary(kClamp, {"min", -INFINITY}, {"max", INFINITY})},

      // ** binary elementwise ** (`out` dropped) An operand may be a scalar literal, as fx
      // records `x * 0.5` and `2 + x`; results follow torch's type promotion.
      // add is commutative only when alpha == 1 (input + alpha * other): the matcher swaps an
      // add's operands only then (OpSchema::commutes).
      {"add(Tensor|Scalar input, Tensor|Scalar other, Scalar alpha=1)", kBinaryClasses, add,
       "input + alpha * other (commutative when alpha == 1)",
       binary(kAdd, {"alpha", 1}), /*commutative=*/true, {}, "alpha",
       int64_t{1}},
      {"sub(Tensor|Scalar input, Tensor|Scalar other, Scalar alpha=1)", kBinaryClasses, sub,
       "input - alpha * other", binary(kSub, {"alpha", 1})},
      {"mul(Tensor|Scalar input, Tensor|Scalar other)", kBinaryClasses, mul, "input * other",
       binary(kMul),
       /*commutative=*/true},
      {"div(Tensor|Scalar input, Tensor|Scalar other, str? rounding_mode=None)", kBinaryClasses,
       div,
       "input / other; rounding_mode 'trunc' or 'floor' rounds the quotient",
       binary(kDiv, {"", 1},
       {{"rounding_mode", "trunc", kDivTrunc}, {"rounding_mode", "floor", kDivFloor}})},
      {"pow(Tensor|Scalar input, Tensor|Scalar exponent)", kBinaryClasses, pow, "input ** exponent",
       binary(kPow)},
      {"maximum(Tensor input, Tensor other)", kBinaryClasses, maximum_minimum,
       "elementwise max(input, other)", binary(kMaximum), /*commutative=*/true},
      {"minimum(Tensor input, Tensor other)", kBinaryClasses, maximum_minimum,
       "elementwise min(input, other)", binary(kMinimum), /*commutative=*/true},

      // ** pooling ** `return_indices` dropped. stride=[] is torch's stride=None: the kernel
      // size.
      {"max_pool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
       "int[2] dilation=1, bool ceil_mode=False)",
       {"pool"}, max_pool2d, "maximum over each kernel_size window", family(kPool2d, {kImage})},
      {"avg_pool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
       "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)",
       {"pool"}, avg_pool2d, "mean over each kernel_size window", family(kPool2d, {kImage})},
      // torch also accepts None in output_size (keep that input size); exporters write it out.
      {"adaptive_avg_pool2d(Tensor input, int[2] output_size)", {"pool"}, adaptive_pool2d,
       "mean pooling to exactly output_size (H, W)", family(kAdaptivePool2d, {kImage})},
      {"adaptive_max_pool2d(Tensor input, int[2] output_size)", {"pool"}, adaptive_pool2d,
       "max pooling to exactly output_size (H, W)", family(kAdaptivePool2d, {kImage})},

      // ** reductions ** (`dtype` and `out` dropped) dim=None or [] reduces every dim.
      {"mean(Tensor input, int[]? dim=None, bool keepdim=False)", {"reduction"}, mean,
       "mean over dim", family(kReduce)},
      {"sum(Tensor input, int[]? dim=None, bool keepdim=False)", {"reduction"}, sum,
       "sum over dim (integers sum in int64)", family(kReduce)},
      {"amax(Tensor input, int[] dim=[], bool keepdim=False)", {"reduction"}, amax,
       "maximum over dim", family(kReduce)},
      {"amin(Tensor input, int[] dim=[], bool keepdim=False)", {"reduction"}, amin,
       "minimum over dim", family(kReduce)},

      // ** shape and data movement **
      {"flatten(Tensor input, int start_dim=0, int end_dim=-1)", {"shape"}, flatten,
       "merges dims start_dim..end_dim into one", family(kView)},
      // The sizes may be symbols (SymInt[]): [N*T, C] -> [N, T, C] in a model exported at
      // any N and T.
      {"reshape(Tensor input, SymInt[] shape)", {"shape"}, reshape,
       "the same elements in a new shape; one size may be -1 (inferred), sizes may be symbols",
       family(kView), false, {"view"}},
      {"permute(Tensor input, int[] dims)", {"shape"}, permute, "reorders the dims",
       family(kPermute)},
      {"transpose(Tensor input, int dim0, int dim1)", {"shape"}, transpose, "swaps two dims",
       family(kPermute)},
      {"unsqueeze(Tensor input, int dim)", {"shape"}, unsqueeze, "inserts a dim of size 1",
       family(kView)},
      {"squeeze(Tensor input, int? dim=None)", {"shape"}, squeeze,
       "removes dims of size 1 (only `dim` if given)", family(kView)},
      {"cat(Tensor[] tensors, int dim=0)", {}, cat,  // `out` dropped
       "concatenates tensors along dim", family(kCat)},
      // `memory_format` dropped (contiguous, clone).
      {"contiguous(Tensor input)", {"no_op"}, any_dtype,
       "the input in row-major layout: the identity on graft's graphs", family(kIdentity)},
      {"clone(Tensor input)", {"no_op"}, any_dtype, "a copy: the identity on graft's graphs",
       family(kIdentity)},
      {"unflatten(Tensor input, int dim, SymInt[] sizes)", {"shape"}, unflatten,
       "splits dim into sizes (one may be -1, sizes may be symbols)", family(kView)},
      // start and end may be symbols (SymInt): bias[:, :, :T, :T] in a model exported at any T.
      {"slice(Tensor input, int dim=0, SymInt? start=None, SymInt? end=None, int step=1)",
       {"shape"},
       slice, "elements start, start + step, … before end along dim (Python's clamping; step > 0)",
       family(kStrided)},
      {"select(Tensor input, int dim, int index)", {"shape"}, select,
       "the slice at index along dim, without that dim (index may be negative)",
       family(kStrided)},
      // functionalize's form of writes into slices (x[:, 1:] += y, x[0] = y).
      {"slice_scatter(Tensor input, Tensor src, int dim=0, int? start=None, int? end=None, "
       "int step=1)",
       {}, slice_scatter,
       "input with src written into input's slice(dim, start, end, step); src has that slice's "
       "shape",
       family(kScatter)},
      {"select_scatter(Tensor input, Tensor src, int dim, int index)", {}, select_scatter,
       "input with src written into input's select(dim, index); src has that select's shape",
       family(kScatter)},
      {"expand(Tensor input, int[] size)", {"shape"}, expand,
       "repeats size-1 dims (and new leading ones) to size; -1 keeps a dim", family(kStrided)},
      {"expand_as(Tensor input, Tensor other)", {"shape"}, expand_as,
       "expand to other's shape", family(kStrided)},
      {"flip(Tensor input, int[] dims)", {"shape"}, flip, "reverses the order along dims",
       family(kStrided)},
      {"roll(Tensor input, int[] shifts, int[] dims=[])", {"shape"}, roll,
       "rotates by shifts along dims (the flattened input if dims is empty)", family(kRoll)},
      {"embedding(Tensor input, Tensor weight)", {}, embedding,
       "rows of weight (V, D) at the int64 indices input: input's shape + [D]", family(kGather)},
      {"index_select(Tensor input, int dim, Tensor index)", {}, index_select,
       "the entries at the int64 indices index (1-d) along dim", family(kGather)},
      // `inplace` dropped. Not a no_op: with training=True it zeroes and rescales.
      {"dropout(Tensor input, float p=0.5, bool training=True)", {}, dropout,
       "zeroes elements with probability p when training; the identity when training=False",
       family(kDropout)},

      // ** convolution over 1 and 3 spatial dims ** Not in the `conv` class: rules written
      // for that class (batch-norm folding, post-op fusion) assume conv2d's 4-d weight and
      // its fused forms.
      {"conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
       "int[1] padding=0, int[1] dilation=1, int groups=1)",
       {}, conv1d, "1-D convolution over (N, C, L) or (C, L); weight is (O, C/groups, kL)",
       family(kConvNd, {kConvInput, kConvWeight, kOutChannels})},
      {"conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
       "int[3] padding=0, int[3] dilation=1, int groups=1)",
       {}, conv3d,
       "3-D convolution over (N, C, D, H, W) or (C, D, H, W); weight is (O, C/groups, kD, kH, "
       "kW)",
       family(kConvNd, {kConvInput, kConvWeight, kOutChannels})},

      // ** resampling ** torch's other modes (linear, bicubic, trilinear, area, nearest-exact)
      // and recompute_scale_factor / antialias are not in graft; exporters refuse them.
      with_choices(
          {"interpolate(Tensor input, int[]? size=None, float[]? scale_factor=None, "
           "str mode='nearest', bool? align_corners=None)",
           {}, interpolate,
           "resizes (N, C, H, W) to size, or to floor(in * scale_factor), which then also "
           "maps the coordinates; 'nearest' takes floor(dst * in / out) as torch does",
           family(kInterpolate, {kImage})},
          {{"mode", {"nearest", "bilinear"}}}),
      // ** comparison, selection and dtypes ** (`out` dropped) Results are exact in any dtype;
      // a comparison or a selection computes in torch's promoted dtype of its operands.
      {"eq(Tensor input, Tensor|Scalar other)", {}, compare, "input == other, as bool",
       family(kCompare)},
      {"ne(Tensor input, Tensor|Scalar other)", {}, compare, "input != other, as bool",
       family(kCompare)},
      {"lt(Tensor input, Tensor|Scalar other)", {}, compare, "input < other, as bool",
       family(kCompare)},
      {"le(Tensor input, Tensor|Scalar other)", {}, compare, "input <= other, as bool",
       family(kCompare)},
      {"gt(Tensor input, Tensor|Scalar other)", {}, compare, "input > other, as bool",
       family(kCompare)},
      {"ge(Tensor input, Tensor|Scalar other)", {}, compare, "input >= other, as bool",
       family(kCompare)},
      {"logical_not(Tensor input)", {}, logical, "input == 0, as bool", family(kLogical)},
      {"logical_and(Tensor input, Tensor other)", {}, logical,
       "input != 0 and other != 0, as bool", family(kLogical)},
      {"logical_or(Tensor input, Tensor other)", {}, logical, "input != 0 or other != 0, as bool",
       family(kLogical)},
      {"where(Tensor condition, Tensor|Scalar input, Tensor|Scalar other)", {}, where,
       "input where the bool condition holds, else other (broadcast)", family(kWhere)},
      {"masked_fill(Tensor input, Tensor mask, Scalar value)", {}, masked_fill,
       "value where the bool mask holds, else input (the mask broadcasts)", family(kWhere)},
      // `dtype` names a graft dtype ('float32', 'int64', 'bool', …); `layout`, `device`,
      // `pin_memory` and `memory_format` dropped.
      {"full_like(Tensor input, Scalar fill_value, str? dtype=None)", {}, full_like,
       "a tensor of the input's shape filled with fill_value, in dtype or the input's dtype",
       family(kFullLike)},
      // ** sizes that follow a symbol ** torch.arange(start, end, step); start and end may be
      // symbols (arange(T) in a model exported at any T). `layout`, `device`, `pin_memory`
      // dropped; dtype None is int64 when every bound is an int (a symbol is one), else
      // float32, as torch's default.
      {"arange(SymScalar start, SymScalar end, Scalar step=1, str? dtype=None)", {}, arange,
       "start, start + step, … before end: ceil((end - start) / step) values in dtype",
       family(kArange)},
      // Tensor.to(dtype); `non_blocking` and `copy` dropped.
      {"to(Tensor input, str dtype)", {}, to_dtype,
       "each element converted to dtype as torch converts (floats truncate toward 0)",
       family(kCast)},
      // `dtype` dropped: integers and bools sum in int64, as torch's default.
      {"cumsum(Tensor input, int dim)", {}, cumsum, "running sum along dim",
       family(kCumsum)},
      {"argmax(Tensor input, int? dim=None, bool keepdim=False)", {}, arg_reduce,
       "int64 index of the maximum over dim (of the flattened input for None; the first one)",
       family(kArgReduce)},
      {"argmin(Tensor input, int? dim=None, bool keepdim=False)", {}, arg_reduce,
       "int64 index of the minimum over dim (of the flattened input for None; the first one)",
       family(kArgReduce)},

      // ** transposed convolution and group normalization ** Not in the `conv` or
      // `normalization` classes: the rules written for those (batch-norm folding, post-op
      // fusion) assume conv2d's weight layout and batch_norm's operands.
      {"conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
       "int[1] padding=0, int[1] output_padding=0, int groups=1, int[1] dilation=1)",
       {}, conv_transpose1d,
       "transposed 1-D convolution over (N, C, L) or (C, L); weight is (C, O/groups, kL)",
       family(kConvTranspose, {kConvInput, kConvTransposeWeight, kTransposedOutChannels})},
      {"conv_transpose2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
       "int[2] padding=0, int[2] output_padding=0, int groups=1, int[2] dilation=1)",
       {}, conv_transpose2d,
       "transposed 2-D convolution over (N, C, H, W) or (C, H, W); weight is (C, O/groups, kH, "
       "kW)",
       family(kConvTranspose, {kConvInput, kConvTransposeWeight, kTransposedOutChannels})},
      {"conv_transpose3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
       "int[3] padding=0, int[3] output_padding=0, int groups=1, int[3] dilation=1)",
       {}, conv_transpose3d,
       "transposed 3-D convolution over (N, C, D, H, W) or (C, D, H, W); weight is (C, "
       "O/groups, kD, kH, kW)",
       family(kConvTranspose, {kConvInput, kConvTransposeWeight, kTransposedOutChannels})},
      {"group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
       "float eps=1e-05)",
       {}, group_norm,
       "normalizes (N, C, *) over each of num_groups channel groups, then * weight + bias (C)",
       family(kGroupNorm)},
      // ** padding and 3-D pooling (issue #27) ** `pad` holds (left, right) pairs from the last
      // dim backwards; torch's non-constant modes take 2 to 5 dims, graft's any rank.
      with_choices(
          {"pad(Tensor input, int[] pad, str mode='constant', float? value=None)", {}, pad,
           "pads the last len(pad) / 2 dims by (left, right) each; negative pads crop; value "
           "(default 0) fills in constant mode, which alone takes one",
           family(kPad)},
          {{"mode", {"constant", "reflect", "replicate", "circular"}}}),
      {"max_pool3d(Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
       "int[3] dilation=1, bool ceil_mode=False)",
       {"pool"}, max_pool3d, "maximum over each kernel_size window of (N, C, D, H, W)",
       family(kPool3d)},
      {"avg_pool3d(Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
       "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)",
       {"pool"}, avg_pool3d, "mean over each kernel_size window of (N, C, D, H, W)",
       family(kPool3d)},
      {"adaptive_avg_pool3d(Tensor input, int[3] output_size)", {"pool"}, adaptive_pool3d,
       "mean pooling to exactly output_size (D, H, W)", family(kAdaptivePool3d)},
  };
}

}  // namespace graft
