// What the binder (engine/match/match_binder.cpp) works out about a rule once, when the rule set is
// compiled: whether binding the pattern involves choices, and which bindings the `where`
// conditions read. The binder uses both to backjump over choices a failure does not depend on
// (docs/matcher.md).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/match/pattern.h"

namespace graft {

/// The binder numbers what it binds in *slots*: the pattern nodes, then the variables, then
/// the attribute variables.
struct BindPlan {
  uint32_t var_slots = 0;   // the first variable's slot (the number of pattern nodes)
  uint32_t attr_slots = 0;  // the first attribute variable's slot
  uint32_t slot_count = 0;
  /// Whether a binding can go more than one way: a commutative pattern node, two alternatives
  /// of one op, or a pattern node reached only through the users of bound values (the other
  /// results of a multi-output pattern).
  bool has_choices = false;
  /// The slots the `where` conditions read (variables, pattern nodes, attribute variables).
  std::vector<uint32_t> condition_slots;
  /// The pattern's parts: its pattern nodes grouped by whether they are connected through
  /// operands and shared variables. A pattern of two or more (`return relu(a), sigmoid(b)`)
  /// is bound part by part, each later part from the nodes of its class (docs/matcher.md).
  uint32_t parts = 1;
};

BindPlan make_bind_plan(const Rule& rule);

}  // namespace graft
