// The numbers a rule writes (`clamp(x, 0.0, 6.0)`, `x * 0.5`, `where $a > 0.1`): the verifier
// draws inputs at and around them, since a wrong rule's error often starts at one of its own
// constants.
#pragma once

#include <vector>

#include "dsl/rule_file_set.h"

namespace graft::ruletest {

/// Every finite numeric literal of the rule's pattern, `where` clauses and replacement, each
/// once, in source order.
std::vector<double> numeric_literals(const dsl::CheckedRule& rule);

}  // namespace graft::ruletest
