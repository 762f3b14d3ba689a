// Evaluating one pattern attribute check against a node's attribute value. Shared by the
// automaton (which folds literal checks into node labels) and the residual binder.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/ir/attr.h"
#include "engine/match/pattern.h"

namespace graft {

/// The value as a number (ints, floats and bools), or nullopt.
std::optional<double> attr_number(const AttrValue& value);

/// `value == expected`; numbers within `tolerance` when it is positive.
bool attr_matches(const AttrValue& value, const AttrValue& expected, double tolerance);

/// Item `i` of an int or float list attribute as an int or float value; nullopt past its end
/// or for a value that is not such a list.
std::optional<AttrValue> attr_list_item(const AttrValue& value, size_t i);
/// The number of items of an int or float list attribute; nullopt for another value.
std::optional<size_t> attr_list_size(const AttrValue& value);

/// Whether `value` passes `check`, which must not be a binding (AttrCheck::Kind::kBind); a
/// kList holds when the list has its length and its literal items match (its bindings are the
/// binder's).
bool attr_check_holds(const AttrCheck& check, const AttrValue& value);

/// A key identifying `check` (not a binding) up to equality: equal keys, same verdicts.
std::string attr_check_key(const AttrCheck& check);

/// `check` as rule text for dumps: `groups=1`, `eps=1e-05~1e-07`, `stride in {[1, 1], [2, 2]}`,
/// `alpha in 0..1`, `stride=$s` (the name of attribute variable `check.var` from `attr_vars`,
/// `$<var>` without it).
std::string attr_check_text(const OpSchema& op, const AttrCheck& check,
                            const std::vector<std::string>* attr_vars = nullptr);

}  // namespace graft
