// Structural equality of graphs up to node names, for `expect graph { … }`: two graphs are
// equal when a walk from their outputs pairs every node one to one with the same kind, op,
// attributes, scalar operands and operand structure (inputs by name, constants by type and,
// where the expected graph gives literal values, by value). Also the compact one-line-per-node
// form both graphs are printed in, with differing nodes marked.
#pragma once

#include <set>
#include <string>

#include "engine/ir/graph.h"

namespace graft::ruletest {

struct GraphMatchOptions {
  /// get_attr targets of the expected graph that match any constant of their dtype and shape
  /// (its random `param`s: folded weights are new tensors).
  std::set<std::string> any_constants;
  /// Literal constants match within |a - e| <= atol + rtol * |e| (float dtypes; others exactly).
  double rtol = 1e-5;
  double atol = 1e-6;
};

struct GraphMatch {
  bool equal = false;
  std::string reason;    // the first difference found (walking from the outputs); "" when equal
  std::string expected;  // the expected graph, compact, differing nodes marked with '!'
  std::string actual;    // the actual graph, likewise
};

/// Compares `actual` with `expected`. Operands are compared in order, also for commutative ops:
/// a rewrite creates its ops as the replacement writes them, so the order is known.
GraphMatch match_graphs(const Graph& actual, const Graph& expected,
                        const GraphMatchOptions& options = {});

/// One line per live node, indented by `indent`: `x: float32[1, 3, 8, 8]` for inputs,
/// `name = op(args, kw=v) : type` for the rest, `return a, b` last. Lines of nodes in `marked`
/// start with "! " instead of two spaces.
std::string format_graph_compact(const Graph& graph, const std::set<const Node*>& marked = {},
                                 const std::string& indent = "");

}  // namespace graft::ruletest
