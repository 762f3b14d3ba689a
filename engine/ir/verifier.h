// The graph verifier (torch.fx's graph.lint()): structural invariants every pass must keep.
#pragma once

#include "engine/ir/graph.h"
#include "engine/support/diagnostics.h"

namespace graft {

/// Checks that: nodes are in topological order (every input is defined earlier); user lists
/// match the inputs exactly; names are unique and indexed; call_function nodes have a schema
/// and operand/attribute counts that fit it; the output node exists, is last and unique;
/// get_attr targets exist in the constant store; inferred types, where present, agree with the
/// shape functions. Reports each violation to `diags` naming the node; returns true if clean.
[[nodiscard]] bool verify_graph(const Graph& graph, DiagnosticEngine& diags,
                                const std::string& file = "graph");

}  // namespace graft
