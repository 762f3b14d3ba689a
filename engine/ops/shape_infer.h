// Shape and dtype inference for call_function nodes, dispatching to the schema's InferFn, and
// the small helpers the op table's shape functions share (broadcasting, conv output size).
#pragma once

#include <optional>
#include <string>

#include "engine/ir/graph.h"
#include "engine/ops/op_schema.h"

namespace graft {

/// Gathers the operand types and attributes of `node` for its schema's shape function.
InferInputs infer_inputs_of(const Node& node);
/// Infers the type of a call_function node from its inputs' types. Returns nullopt and sets
/// `error` if an input has no type or the shape function rejects the inputs.
std::optional<TensorType> infer_node_type(const Node& node, std::string* error);

// ** helpers for shape functions **
/// numpy/torch broadcasting of two shapes; nullopt if incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);
/// Output size of a sliding window (conv, pooling): symbolic in -> unknown out; nullopt when
/// the window does not fit in the padded input, a parameter is out of range (kernel, stride or
/// dilation below 1, negative padding) or a step overflows int64.
std::optional<Dim> window_output_size(Dim in, int64_t kernel, int64_t stride, int64_t pad,
                                      int64_t dilation, bool ceil_mode);
/// Normalises a possibly negative dimension index; nullopt if out of range.
std::optional<int64_t> normalize_dim(int64_t dim, int64_t rank);

}  // namespace graft
