// Evaluating one pattern attribute check against a node's attribute value. Shared by the
// automaton (which folds literal checks into node labels) and the residual binder.
#pragma once

#include <optional>
#include <string>

#include "engine/ir/attr.h"
#include "engine/match/pattern.h"

namespace graft {

/// The value as a number (ints, floats and bools), or nullopt.
std::optional<double> attr_number(const AttrValue& value);

/// `value == expected`; numbers within `tolerance` when it is positive.
bool attr_matches(const AttrValue& value, const AttrValue& expected, double tolerance);

/// Whether `value` passes `check`, which must not be a binding (AttrCheck::Kind::kBind).
bool attr_check_holds(const AttrCheck& check, const AttrValue& value);

/// A key identifying `check` (not a binding) up to equality: equal keys, same verdicts.
std::string attr_check_key(const AttrCheck& check);

}  // namespace graft
