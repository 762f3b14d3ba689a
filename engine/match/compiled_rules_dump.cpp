// CompiledRules::dump: the automaton's tables as text, for `rewrite check --dump` and golden
// tests. Predicates are named `op#bit`, classes `cN`; an item lists the predicate bits it
// requires and its operands' classes (`_` for anything), so each line is one transition rule
// of the tree automaton (docs/matcher.md#reading-the-dumps).
#include <fmt/format.h>

#include "engine/match/attr_check.h"
#include "engine/match/matcher.h"
#include "engine/ops/op_registry.h"

namespace graft {
namespace {

std::string item_text(const CompiledRules::Item& item) {
  const OpSchema& op = OpRegistry::get().op(item.op);
  std::string text = (item.commutative ? "commutative " : "") + op.name + "(";
  for (size_t i = 0; i < item.children.size(); ++i) {
    int32_t c = item.children[i];
    text += (i > 0 ? ", " : "") + (c == CompiledRules::kAnyChild ? "_" : "c" + std::to_string(c));
  }
  if (item.variadic_any) text += item.children.empty() ? "..." : ", ...";
  text += ")";
  if (item.required != 0) {
    text += " [";
    bool first = true;
    for (int bit = 0; bit < 64; ++bit) {
      if (((item.required >> bit) & 1) == 0) continue;
      text += fmt::format("{}#{}", first ? "" : " ", bit);
      first = false;
    }
    text += "]";
  }
  return text;
}

/// A binder slot (engine/match/bind_plan.h) by the name the rule dump uses.
std::string slot_text(const Rule& rule, const BindPlan& plan, uint32_t slot) {
  if (slot < plan.var_slots) return "n" + std::to_string(slot);
  if (slot < plan.attr_slots) return rule.var_names[slot - plan.var_slots];
  return "$" + rule.attr_var_names[slot - plan.attr_slots];
}

}  // namespace

std::string CompiledRules::dump() const {
  const std::vector<Rule>& rules = rules_->rules;
  std::string out = fmt::format("compiled {} rules: {} classes, {} predicates, max height {}\n",
                                rules.size(), classes_.size(), predicate_count(), max_height_);
  out += "predicates\n";
  for (OpId op = 0; op < predicates_.size(); ++op) {
    const OpSchema& schema = OpRegistry::get().op(op);
    for (size_t bit = 0; bit < predicates_[op].size(); ++bit) {
      bool commute = op < commute_bit_.size() && commute_bit_[op] == static_cast<int>(bit);
      out += fmt::format("  {}#{} {}{}\n", schema.name, bit,
                         attr_check_text(schema, predicates_[op][bit]),
                         commute ? " (operands commute)" : "");
    }
  }
  out += "classes\n";
  for (size_t c = 0; c < classes_.size(); ++c) {
    std::string items;
    for (size_t i = 0; i < classes_[c].size(); ++i) {
      items += (i > 0 ? " | " : "") + item_text(classes_[c][i]);
    }
    out += fmt::format("  c{} = {}", c, items);
    if (!anchored_[c].empty()) {
      out += "  anchors";
      for (uint32_t r : anchored_[c]) out += " " + rules[r].name;
    }
    out += "\n";
  }
  out += "rules\n";
  for (uint32_t r = 0; r < rules.size(); ++r) {
    const Rule& rule = rules[r];
    const BindPlan& plan = bind_plans_[r];
    out += "  " + rule.name + ":";
    for (size_t n = 0; n < node_class_[r].size(); ++n) {
      out += fmt::format(" n{}=c{}", n, node_class_[r][n]);
    }
    out += fmt::format("; {} slots; {}", plan.slot_count, plan.has_choices ? "choices" : "one way");
    if (plan.parts > 1) out += fmt::format("; {} parts", plan.parts);
    if (!plan.condition_slots.empty()) {
      out += "; where reads";
      for (uint32_t s : plan.condition_slots) out += " " + slot_text(rule, plan, s);
    }
    if (binding_leader_[r] != r) out += "; binds as " + rules[binding_leader_[r]].name;
    out += "\n";
  }
  return out;
}

}  // namespace graft
