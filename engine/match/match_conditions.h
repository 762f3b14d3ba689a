// Evaluating a rule's `where` conditions on a complete binding.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/match/pattern.h"

namespace graft {

/// True if every condition of `rule` holds for the binding (in `graph`, whose constants
/// `value(w)`, `param(w)` and `buffer(w)` read) and every dim symbol the
/// replacement reads is bound to a concrete size; otherwise sets `reason` to the first failing
/// condition ("where uses(y) == 1 (fuse.rules:5:9): 2 == 1 is false"). On success `symbols`
/// (if given) receives the dims bound to the rule's symbols (unknown_dim() for unbound ones).
bool conditions_hold(const Graph& graph, const Rule& rule, const std::vector<Node*>& nodes,
                     const std::vector<Input>& vars, const std::vector<AttrValue>& attr_vars,
                     std::string* reason, std::vector<Dim>* symbols = nullptr);

}  // namespace graft
