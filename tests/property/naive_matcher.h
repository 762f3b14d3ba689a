// The reference for the matcher cross-check (matcher_cross_check_test.cpp): every binding of a
// rule anywhere in a graph, found by plain enumeration with none of the compiled matcher's
// machinery — no classes, states or predicates, no backjumping, no budget. Pattern nodes are
// assigned in index order (operands before their users): a leaf pattern node tries every node
// of the graph, any other the users of its first bound operand node, in every alternative and
// operand order; the `where` conditions are then checked by the engine's own evaluator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/match/pattern.h"

namespace graft::testing {

struct NaiveBinding {
  std::vector<Node*> nodes;          // per Rule::nodes
  std::vector<Input> vars;           // per Rule::var_names (None when never bound)
  std::vector<AttrValue> attr_vars;  // per Rule::attr_var_names
};

/// A text naming `b` exactly (node names, variable values, attribute values), for sets and
/// messages.
std::string binding_key(const NaiveBinding& b);

/// Every binding of `rule` in `graph`, each once; fails the test if there are more than
/// `limit` partial bindings to try.
std::vector<NaiveBinding> naive_bindings(const Rule& rule, const Graph& graph,
                                         uint64_t limit = 10'000'000);

}  // namespace graft::testing
