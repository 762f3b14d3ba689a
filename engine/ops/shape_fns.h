// Private to the op table: the shape and dtype functions of the torch ops (one InferFn per op
// family, in engine/shape_fns_*.cpp) and the helpers they share. Each function matches
// PyTorch 1.13 on concrete shapes (tests/golden/shape_cases.json is generated from torch) and
// keeps symbolic dims where torch's rule allows, giving unknown_dim() where a size depends on
// a symbol's value. Error messages omit the op name; the caller prefixes it ("conv2d: …").
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/ops/op_schema.h"

namespace graft::shape_fns {

using Result = std::optional<TensorType>;

// ** helpers (shape_fns_common.cpp) **

/// Operand `i` as a tensor, or nullptr after setting `error` ("weight must be a tensor").
const TensorType* require_tensor(const InferInputs& in, size_t i, std::string* error);
/// False after setting `error` unless `t` has a floating-point dtype ("input has dtype int64,
/// expected a floating-point dtype").
bool require_floating(const InferInputs& in, size_t i, const TensorType& t, std::string* error);
/// The name of operand `i` in the schema ("input", "weight", "tensors[2]").
std::string operand_name(const InferInputs& in, size_t i);
/// torch's maybe_wrap_dim: a dim in [-rank, rank) made non-negative; a 0-d tensor accepts
/// 0 and -1 as torch does. nullopt after setting `error` ("dim 5 out of range for rank 4
/// (expected -4 to 3)").
std::optional<int64_t> wrap_dim(int64_t dim, int64_t rank, std::string* error);
/// An `int[2]` attribute as two values; nullopt after setting `error` if it is empty (the
/// coercion lets `[]` through for "same as another parameter").
std::optional<std::array<int64_t, 2>> pair_attr(const InferInputs& in, const std::string& name,
                                                std::string* error);
/// The product of `dims`: concrete if every dim is; the symbol itself if exactly one dim is a
/// symbol and the others are 1; unknown otherwise.
Dim dim_product(const Shape& dims);
/// "[1, 2]"
std::string ints_to_string(const std::vector<int64_t>& values);
/// A Scalar-typed attribute value (int or float) as a Scalar; nullopt for None.
std::optional<Scalar> scalar_attr(const InferInputs& in, const std::string& name);
/// False after setting `error` if `value` cannot become a `dtype` element: torch's "value
/// cannot be converted to type … without overflow" (a NaN or infinity into an integer dtype,
/// 1e300 into float32). Integers truncate toward zero first (-2.7 fills int64 with -2)
/// (shape_fns_logic.cpp).
bool check_fill_value(const char* what, const Scalar& value, DType dtype, std::string* error);
/// The broadcast shape and promoted dtype of operands `first` .. `first + count - 1`, each a
/// tensor or a scalar literal, at least one a tensor; nullopt after setting `error`
/// (shape_fns_elementwise.cpp).
Result broadcast_promote(const InferInputs& in, std::string* error, size_t first = 0,
                         size_t count = 2);

// ** elementwise (shape_fns_elementwise.cpp) **
Result same_dtype_no_bool(const InferInputs& in, std::string* error);  // relu, neg, abs, …
Result floating_only(const InferInputs& in, std::string* error);       // silu, elu, …
Result to_floating(const InferInputs& in, std::string* error);         // sigmoid, sqrt, …
Result any_dtype(const InferInputs& in, std::string* error);           // contiguous, clone
Result gelu(const InferInputs& in, std::string* error);
Result dropout(const InferInputs& in, std::string* error);
Result clamp(const InferInputs& in, std::string* error);
Result add(const InferInputs& in, std::string* error);
Result sub(const InferInputs& in, std::string* error);
Result mul(const InferInputs& in, std::string* error);
Result div(const InferInputs& in, std::string* error);
Result pow(const InferInputs& in, std::string* error);
Result maximum_minimum(const InferInputs& in, std::string* error);

// ** convolution and matrix products (shape_fns_conv.cpp) **
Result conv1d(const InferInputs& in, std::string* error);
Result conv2d(const InferInputs& in, std::string* error);
Result conv3d(const InferInputs& in, std::string* error);
Result linear(const InferInputs& in, std::string* error);
Result matmul(const InferInputs& in, std::string* error);
Result scaled_dot_product_attention(const InferInputs& in, std::string* error);

// ** pooling over 2 and 3 spatial dims (shape_fns_pool.cpp) **
Result max_pool2d(const InferInputs& in, std::string* error);
Result avg_pool2d(const InferInputs& in, std::string* error);
Result adaptive_pool2d(const InferInputs& in, std::string* error);
Result max_pool3d(const InferInputs& in, std::string* error);
Result avg_pool3d(const InferInputs& in, std::string* error);
Result adaptive_pool3d(const InferInputs& in, std::string* error);

// ** normalization (shape_fns_norm.cpp) **
Result batch_norm(const InferInputs& in, std::string* error);
Result layer_norm(const InferInputs& in, std::string* error);
Result softmax(const InferInputs& in, std::string* error);

// ** reductions (shape_fns_reduce.cpp) **
Result mean(const InferInputs& in, std::string* error);
Result sum(const InferInputs& in, std::string* error);
Result amax(const InferInputs& in, std::string* error);
Result amin(const InferInputs& in, std::string* error);

// ** shape and data movement (shape_fns_tensor.cpp) **
Result flatten(const InferInputs& in, std::string* error);
Result reshape(const InferInputs& in, std::string* error);
Result permute(const InferInputs& in, std::string* error);
Result transpose(const InferInputs& in, std::string* error);
Result unsqueeze(const InferInputs& in, std::string* error);
Result squeeze(const InferInputs& in, std::string* error);
Result cat(const InferInputs& in, std::string* error);

// ** resampling (shape_fns_resample.cpp) **
Result interpolate(const InferInputs& in, std::string* error);
// ** comparison, selection and dtypes (shape_fns_logic.cpp) **
Result compare(const InferInputs& in, std::string* error);      // eq, ne, lt, le, gt, ge
Result logical(const InferInputs& in, std::string* error);      // logical_not/and/or
Result where(const InferInputs& in, std::string* error);
Result masked_fill(const InferInputs& in, std::string* error);
Result full_like(const InferInputs& in, std::string* error);
Result to_dtype(const InferInputs& in, std::string* error);     // to
Result cumsum(const InferInputs& in, std::string* error);
Result arg_reduce(const InferInputs& in, std::string* error);   // argmax, argmin
// ** padding (shape_fns_pad.cpp) **
Result pad(const InferInputs& in, std::string* error);
// ** sizes that follow a symbol (shape_fns_range.cpp) **
Result arange(const InferInputs& in, std::string* error);
// ** picking and repeating elements (shape_fns_indexing.cpp) **
Result slice(const InferInputs& in, std::string* error);
Result select(const InferInputs& in, std::string* error);
Result slice_scatter(const InferInputs& in, std::string* error);
Result select_scatter(const InferInputs& in, std::string* error);
Result expand(const InferInputs& in, std::string* error);
Result expand_as(const InferInputs& in, std::string* error);
Result unflatten(const InferInputs& in, std::string* error);
Result roll(const InferInputs& in, std::string* error);
Result flip(const InferInputs& in, std::string* error);
Result embedding(const InferInputs& in, std::string* error);
Result index_select(const InferInputs& in, std::string* error);
// ** transposed convolution (shape_fns_conv.cpp) and group normalization (shape_fns_norm.cpp) **
Result conv_transpose1d(const InferInputs& in, std::string* error);
Result conv_transpose2d(const InferInputs& in, std::string* error);
Result conv_transpose3d(const InferInputs& in, std::string* error);
Result group_norm(const InferInputs& in, std::string* error);

}  // namespace graft::shape_fns
