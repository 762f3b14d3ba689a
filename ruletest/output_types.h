// The types a rewrite must keep: a graph's outputs. A rule that changes an output's dtype or
// shape is wrong whatever the numbers say, and the check needs no runtime, so it holds where
// the runtime cannot run the graph (an int64 output) and a numerical check would be skipped.
#pragma once

#include <optional>
#include <string>

#include "engine/ir/graph.h"

namespace graft::ruletest {

/// "output 0 was float32[2, 3], is int64[2, 3]" for the first output whose type differs
/// between `before` and `after` (or "3 outputs before, 2 after"); nullopt when none does.
std::optional<std::string> changed_output_type(const Graph& before, const Graph& after);

}  // namespace graft::ruletest
