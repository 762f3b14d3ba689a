// Concrete shapes for compilation. A model's placeholders may carry symbolic dims ("N"); the
// runtime compiles for one concrete shape per input (recompiling for a new batch size), so it
// first clones the graph, binds every symbol and re-runs shape inference over the clone.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "engine/ir/graph.h"
#include "engine/support/diagnostics.h"

namespace graft::eval {

/// How to make placeholder shapes concrete: an explicit shape per input name, and values for
/// symbols ("N" -> 8). Explicit shapes also bind the symbols they replace, so giving x's shape
/// fixes N for every other input that uses N.
struct ShapeBindings {
  std::map<std::string, Shape> inputs;
  std::map<std::string, int64_t> symbols;
};

/// Returns a clone of `graph` in which every node has a concrete type: placeholders from
/// `bindings`, get_attr nodes from their constants, call_function nodes by shape inference.
/// Returns nullptr after reporting to `diags` (located in `source_name`) if an input shape is
/// missing or conflicts, a constant is missing, or inference fails at some node.
[[nodiscard]] std::unique_ptr<Graph> concretize_graph(const Graph& graph,
                                                      const ShapeBindings& bindings,
                                                      const std::string& source_name,
                                                      DiagnosticEngine& diags);

}  // namespace graft::eval
