// Evaluating a rule's `where` conditions on a complete binding.
#pragma once

#include <string>
#include <vector>

#include "engine/graph.h"
#include "engine/pattern.h"

namespace graft {

/// True if every condition of `rule` holds for the binding; otherwise sets `reason` to the
/// first failing condition ("where uses(y) == 1 (fuse.rules:5:9): 2 == 1 is false").
bool conditions_hold(const Rule& rule, const std::vector<Node*>& nodes,
                     const std::vector<Input>& vars, const std::vector<AttrValue>& attr_vars,
                     std::string* reason);

}  // namespace graft
