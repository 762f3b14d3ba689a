// Constant subgraphs computed once: a pass over a concrete graph that replaces every op whose
// operands are all constants (a causal mask sliced from a buffer and compared with 0, position
// ids from arange and their embedding) by a constant holding its value, computed with the
// reference kernels. The runtime's compiler runs it before choosing kernels, so such ops cost
// nothing per run and kernels see their inputs as constants.
#pragma once

#include <cstddef>

#include "engine/ir/graph.h"

namespace graft::eval {

/// Folds, in graph order, each call whose inputs are all constants (or scalars) and whose
/// result is at most `max_bytes`; returns how many. An op the reference cannot compute
/// (dropout in training mode, an index out of range) stays as it was, for the runtime to run
/// and report. The graph's shapes must be concrete (eval::concretize_graph).
size_t fold_constant_nodes(Graph& graph, size_t max_bytes);

}  // namespace graft::eval
