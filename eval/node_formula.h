// The formula an elementwise node computes and its parameters, read from the node's attributes
// as its op's row declares (OpSchema::elementwise): the one reading that the reference kernels
// (reference.cpp) and the constant folder's fast path (elementwise_fold.cpp) share, so that
// they agree on every attribute.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "engine/ops/op_schema.h"
#include "eval/elementwise_formulas.h"

namespace graft::eval {

struct NodeFormula {
  ElementOp op;
  ElementParams params;
};

/// The formula of an op of `schema` with attribute values `attrs` (one per schema attribute):
/// a variant attribute's value picks the formula (div's rounding_mode='floor'), the parameter
/// attributes give alpha and beta (None is the row's none value). nullopt with `*error` set for
/// an op without a formula, a parameter that is not a number or a variant value the row does
/// not list.
std::optional<NodeFormula> node_formula(const OpSchema& schema, std::span<const AttrValue> attrs,
                                        std::string* error);

}  // namespace graft::eval
