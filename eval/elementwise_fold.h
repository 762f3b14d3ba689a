// The constant folder's fast path for float32 elementwise ops (the add / rsqrt / mul / sub
// chain of every batch-norm fold): the reference kernels' exact arithmetic without their
// per-call overhead. constant_folder.cpp calls fold_elementwise() before the generic path and
// offers prepare_elementwise() to the rewrite driver; tests compare them byte for byte.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/ir/constants.h"
#include "engine/ir/graph.h"
#include "engine/rewrite/rewriter.h"

namespace graft::eval {

/// The value of call_function node `node` (whose type is concrete) over `operands` (one per
/// input; null for a scalar literal or None), bit-identical to the reference kernels'. Returns
/// nullopt when the fast path does not handle the case — an op that is not a registry
/// elementwise op, a non-float32 or unaligned operand, an attribute the reference would reject,
/// more than 6 dims — and the caller must take the generic path, which reports any error.
/// Throws AllocationError (eval/allocation.h) when the result's buffer cannot be allocated.
std::optional<ConstantTensor> fold_elementwise(const Node& node,
                                               const std::vector<const ConstantTensor*>& operands);

/// fold_elementwise() prepared for `node`'s operand types (its inputs' types), literals and
/// attributes, to run on many operands of those types; nullptr where fold_elementwise would
/// decline whatever the operands. Its run() declines operands not of the prepared types.
std::unique_ptr<PreparedFold> prepare_elementwise(const Node& node);

}  // namespace graft::eval
