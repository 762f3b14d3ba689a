// The constant folder's fast path for float32 elementwise ops (the add / rsqrt / mul / sub
// chain of every batch-norm fold): the reference kernels' exact arithmetic without their
// per-call overhead. This header's interface is just fold_elementwise(); constant_folder.cpp
// calls it before the generic path, and tests compare the two byte for byte.
#pragma once

#include <optional>
#include <vector>

#include "engine/constants.h"
#include "engine/graph.h"

namespace graft::runtime {

/// The value of call_function node `node` (whose type is concrete) over `operands` (one per
/// input; null for a scalar literal or None), bit-identical to the reference kernels'. Returns
/// nullopt when the fast path does not handle the case — an op that is not a registry
/// elementwise op, a non-float32 or unaligned operand, an attribute the reference would reject,
/// more than 6 dims — and the caller must take the generic path, which reports any error.
/// Throws AllocationError (runtime/allocation.h) when the result's buffer cannot be allocated.
std::optional<ConstantTensor> fold_elementwise(const Node& node,
                                               const std::vector<const ConstantTensor*>& operands);

}  // namespace graft::runtime
