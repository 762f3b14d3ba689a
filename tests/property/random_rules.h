// Random rule sets for the driver's termination property: syntactically valid, well-typed
// `.rules` text built from templates chosen to stress the driver rather than to be correct —
// pairs that undo each other (x * 1 <-> x + 0, relu <-> tanh), rules that undo themselves
// (a commuted add, an op rewritten to itself), rules that grow the graph linearly
// (u(x) -> u(x) + 0) or exponentially (u(x) -> u(x) + u(x)), many alternatives and op
// classes, multi-output patterns and `where` conditions, spread over random phases (once,
// fixpoint, fixpoint(max=K)). This file's external interface is random_rule_text().
#pragma once

#include <cstdint>
#include <string>

namespace graft::testing {

/// The rule set of `seed`: 1 to 8 rules and up to 3 phases (rules no phase lists run in the
/// implicit default phase). Deterministic per seed.
std::string random_rule_text(uint64_t seed);

}  // namespace graft::testing
