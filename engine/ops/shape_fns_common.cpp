// Helpers shared by the shape functions of engine/shape_fns_*.cpp.
#include "engine/ops/shape_fns.h"

namespace graft::shape_fns {

std::string operand_name(const InferInputs& in, size_t i) {
  const OpSchema& schema = *in.schema;
  if (schema.has_variadic() && i >= in.variadic_begin) {
    return schema.operands.back().name + "[" + std::to_string(i - in.variadic_begin) + "]";
  }
  return i < schema.operands.size() ? schema.operands[i].name : "operand " + std::to_string(i);
}

const TensorType* require_tensor(const InferInputs& in, size_t i, std::string* error) {
  const TensorType* t = in.type(i);
  if (t == nullptr) *error = operand_name(in, i) + " must be a tensor";
  return t;
}

bool require_floating(const InferInputs& in, size_t i, const TensorType& t, std::string* error) {
  if (is_floating(t.dtype)) return true;
  *error = operand_name(in, i) + " has dtype " + dtype_name(t.dtype) +
           ", expected a floating-point dtype";
  return false;
}

std::optional<int64_t> wrap_dim(int64_t dim, int64_t rank, std::string* error) {
  // torch treats a 0-d tensor as having one dim for indexing (x.sum(0) on a scalar works).
  int64_t effective = rank == 0 ? 1 : rank;
  if (dim < -effective || dim >= effective) {
    *error = "dim " + std::to_string(dim) + " out of range for rank " + std::to_string(rank) +
             " (expected " + std::to_string(-effective) + " to " + std::to_string(effective - 1) +
             ")";
    return std::nullopt;
  }
  return dim < 0 ? dim + effective : dim;
}

std::optional<std::array<int64_t, 2>> pair_attr(const InferInputs& in, const std::string& name,
                                                std::string* error) {
  const auto* list = std::get_if<std::vector<int64_t>>(&in.attr(name));
  if (list == nullptr || list->size() != 2) {
    *error = name + " must have 2 values, got " + attr_to_string(in.attr(name));
    return std::nullopt;
  }
  return std::array<int64_t, 2>{(*list)[0], (*list)[1]};
}

Dim dim_product(const Shape& dims) {
  if (std::optional<int64_t> count = element_count(dims)) return *count;
  for (Dim d : dims) {
    if (d == 0) return 0;  // 0 * N is 0 whatever N is
  }
  Dim symbol = unknown_dim();
  int symbols = 0;
  for (Dim d : dims) {
    if (!is_concrete(d)) {
      symbol = d;
      ++symbols;
    } else if (d != 1) {
      return unknown_dim();
    }
  }
  return symbols == 1 ? symbol : unknown_dim();
}

std::string ints_to_string(const std::vector<int64_t>& values) {
  return attr_to_string(AttrValue{values});
}

std::optional<Scalar> scalar_attr(const InferInputs& in, const std::string& name) {
  const AttrValue& v = in.attr(name);
  if (const auto* i = std::get_if<int64_t>(&v)) return Scalar{static_cast<double>(*i), true};
  if (const auto* d = std::get_if<double>(&v)) return Scalar{*d, false};
  return std::nullopt;
}

}  // namespace graft::shape_fns
