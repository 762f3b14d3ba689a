// The binder's plan for a rule: its slots, whether it has choices, what its conditions read.
#include "engine/match/bind_plan.h"

#include <algorithm>
#include <numeric>

namespace graft {
namespace {

void add_reads(const BindPlan& plan, const ValueRef& v, std::vector<uint32_t>* slots) {
  slots->push_back(v.kind == ValueRef::Kind::kVar ? plan.var_slots + v.index : v.index);
}

void add_reads(const BindPlan& plan, const Term& t, std::vector<uint32_t>* slots) {
  if (t.kind == Term::Kind::kAttrVar) slots->push_back(plan.attr_slots + t.var);
  if (t.kind >= Term::Kind::kUses && t.kind <= Term::Kind::kShapeOf)
    add_reads(plan, t.value, slots);
  for (const Term& item : t.items) add_reads(plan, item, slots);
}

/// Whether some pattern node is not reached from the first root through operands: the binder
/// then joins it through the users of a bound value, one user after another.
bool joins(const Rule& rule) {
  if (rule.roots.empty()) return false;
  std::vector<char> reached(rule.nodes.size(), 0);
  reached[rule.roots[0]] = 1;
  for (size_t i = rule.nodes.size(); i-- > 0;) {  // operands refer only to earlier nodes
    if (!reached[i]) return true;
    for (const PatAlt& alt : rule.nodes[i].alts) {
      for (const PatValue& v : alt.operands) {
        if (v.kind == PatValue::Kind::kNode) reached[v.index] = 1;
      }
    }
  }
  return false;
}

bool has_choices(const Rule& rule) {
  for (const PatNode& node : rule.nodes) {
    if (node.commutative) return true;
    for (size_t a = 0; a < node.alts.size(); ++a) {
      for (size_t b = 0; b < a; ++b) {
        if (node.alts[a].schema == node.alts[b].schema) return true;
      }
    }
  }
  return joins(rule);
}

/// The number of parts of `rule`'s pattern: sets of pattern nodes connected through operands
/// and variables (a union-find over nodes, then variables).
uint32_t count_parts(const Rule& rule) {
  size_t node_count = rule.nodes.size();
  std::vector<size_t> parent(node_count + rule.var_names.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t n = 0; n < node_count; ++n) {
    for (const PatAlt& alt : rule.nodes[n].alts) {
      for (const PatValue& v : alt.operands) {
        if (v.kind == PatValue::Kind::kNode) parent[find(n)] = find(v.index);
        if (v.kind == PatValue::Kind::kVar) parent[find(n)] = find(node_count + v.index);
      }
    }
  }
  std::vector<char> seen(parent.size(), 0);
  uint32_t parts = 0;
  for (size_t n = 0; n < node_count; ++n) {
    char& s = seen[find(n)];
    parts += s == 0;
    s = 1;
  }
  return std::max<uint32_t>(parts, 1);
}

}  // namespace

BindPlan make_bind_plan(const Rule& rule) {
  BindPlan plan;
  plan.var_slots = static_cast<uint32_t>(rule.nodes.size());
  plan.attr_slots = plan.var_slots + static_cast<uint32_t>(rule.var_names.size());
  plan.slot_count = plan.attr_slots + static_cast<uint32_t>(rule.attr_var_names.size());
  plan.has_choices = has_choices(rule);
  plan.parts = count_parts(rule);
  std::vector<uint32_t>& slots = plan.condition_slots;
  for (const Condition& c : rule.conditions) {
    for (const ValueRef& v : c.values) add_reads(plan, v, &slots);
    add_reads(plan, c.lhs, &slots);
    add_reads(plan, c.rhs, &slots);
  }
  std::sort(slots.begin(), slots.end());
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  return plan;
}

}  // namespace graft
