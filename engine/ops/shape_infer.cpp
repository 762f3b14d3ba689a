// Shape inference dispatch and shared helpers.
#include "engine/ops/shape_infer.h"

#include "engine/support/check.h"

namespace graft {

namespace {

void fill_infer_inputs(const Node& node, InferInputs& in) {
  GRAFT_CHECK(node.schema() != nullptr) << "infer on non-call node " << node.name();
  const OpSchema& schema = *node.schema();
  in.schema = &schema;
  in.attrs = node.attrs();
  in.variadic_begin = schema.has_variadic() ? schema.operands.size() - 1 : node.inputs().size();
  in.operand_types.clear();
  in.scalars.clear();
  for (const Input& input : node.inputs()) {
    const TensorType* type = nullptr;
    if (input.is_node() && input.node->type()) type = &*input.node->type();
    in.operand_types.push_back(type);
    in.scalars.push_back(input.is_scalar() ? std::optional<Scalar>(input.scalar) : std::nullopt);
  }
}

}  // namespace

InferInputs infer_inputs_of(const Node& node) {
  InferInputs in;
  fill_infer_inputs(node, in);
  return in;
}

std::optional<TensorType> infer_node_type(const Node& node, std::string* error) {
  for (size_t i = 0; i < node.inputs().size(); ++i) {
    const Input& input = node.input(i);
    if (input.is_node() && !input.node->type()) {
      *error = "input '" + input.node->name() + "' has no known type";
      return std::nullopt;
    }
  }
  const OpSchema& schema = *node.schema();
  if (schema.infer == nullptr) {
    *error = "op '" + schema.name + "' has no shape function";
    return std::nullopt;
  }
  // Rewrites infer a type for every node they create: the operand vectors are reused rather
  // than allocated per call (shape functions never infer recursively).
  thread_local InferInputs in;
  fill_infer_inputs(node, in);
  std::optional<TensorType> type = schema.infer(in, error);
  if (type && !within_size_limit(*type)) {
    *error = "the result " + size_limit_message(*type);
    return std::nullopt;
  }
  return type;
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    Dim da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    Dim db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else if (!is_concrete(da) || !is_concrete(db)) {
      // A symbol against a concrete size: the symbol must equal it at run time.
      out[i] = is_concrete(da) ? da : db;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<Dim> window_output_size(Dim in, int64_t kernel, int64_t stride, int64_t pad,
                                      int64_t dilation, bool ceil_mode) {
  if (!is_concrete(in)) return unknown_dim();
  if (stride <= 0 || kernel < 1 || dilation < 1 || pad < 0) return std::nullopt;
  int64_t effective = 0, padded = 0;
  if (__builtin_mul_overflow(dilation, kernel - 1, &effective) ||
      __builtin_add_overflow(effective, 1, &effective) ||
      __builtin_mul_overflow(pad, 2, &padded) || __builtin_add_overflow(padded, in, &padded)) {
    return std::nullopt;
  }
  int64_t span = padded - effective;
  if (span < 0) return std::nullopt;
  // span + stride - 1 cannot overflow as span / stride + (span % stride != 0) does not.
  int64_t out = span / stride + (ceil_mode && span % stride != 0 ? 1 : 0) + 1;
  // torch: with ceil_mode the last window must start inside the (left-padded) input.
  int64_t last_start = 0;
  if (ceil_mode &&
      (__builtin_mul_overflow(out - 1, stride, &last_start) || last_start >= in + pad)) {
    --out;
  }
  return out;
}

std::optional<int64_t> normalize_dim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank) return std::nullopt;
  return dim < 0 ? dim + rank : dim;
}

}  // namespace graft
