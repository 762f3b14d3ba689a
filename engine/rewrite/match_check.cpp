// The driver's checks of a match before it applies it (see match_check.h).
#include "engine/rewrite/match_check.h"

#include <set>

namespace graft {
namespace {

const Node* binding_node(const Match& m, const ValueRef& ref) {
  if (ref.kind == ValueRef::Kind::kVar) return m.vars[ref.index].node;
  return m.nodes[ref.index];
}

template <typename Fn>
void visit_needed(const Match& m, const ReplValue& v, const Fn& fn) {
  if (v.kind == ReplValue::Kind::kValue) {
    if (const Node* n = binding_node(m, v.value)) fn(n);
  }
  for (const ReplValue& item : v.items) visit_needed(m, item, fn);
}

/// Calls `fn` with each graph node the replacement reads from the pattern (variables and
/// pattern nodes), as often as it is read.
template <typename Fn>
void for_each_needed_value(const Rule& rule, const Match& m, const Fn& fn) {
  for (const ReplOp& op : rule.replacement) {
    for (const ReplValue& v : op.operands) visit_needed(m, v, fn);
  }
  for (const ReplValue& v : rule.results) visit_needed(m, v, fn);
}

/// True if `target` is reachable from `from` through users, without passing through nodes
/// the match replaces (which are gone afterwards) other than `from` itself.
bool depends_on(const Node* target, const Node* from, const NodeSet& in_match) {
  if (target == from) return false;  // reading the replaced value itself is the identity
  if (Graph::is_before(target, from)) return false;
  std::vector<const Node*> stack = {from};
  std::set<const Node*> seen;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Node* u : n->users()) {
      if (u == target) return true;
      if (in_match.contains(u) || Graph::is_before(target, u) || !seen.insert(u).second) continue;
      stack.push_back(u);
    }
  }
  return false;
}

}  // namespace

std::string why_declined(const Rule& rule, const Match& m) {
  NodeSet in_match(m.nodes);
  for (uint32_t p = 0; p < rule.nodes.size(); ++p) {
    if (std::find(rule.roots.begin(), rule.roots.end(), p) != rule.roots.end()) continue;
    for (const Node* u : m.nodes[p]->users()) {
      if (!in_match.contains(u)) {
        return "interior value '" + m.nodes[p]->name() + "' is also used by '" + u->name() +
               "', outside the match (return it from the pattern, or add `where uses(" +
               (rule.nodes[p].name.empty() ? m.nodes[p]->name() : rule.nodes[p].name) +
               ") == 1`)";
      }
    }
  }
  // A value the replacement reads must not depend on a value it replaces.
  std::string cycle;
  for_each_needed_value(rule, m, [&](const Node* needed) {
    for (uint32_t r : rule.roots) {
      if (cycle.empty() && depends_on(needed, m.nodes[r], in_match)) {
        cycle = "the replacement reads '" + needed->name() + "', which is computed from '" +
                m.nodes[r]->name() + "' that it replaces: rewriting would create a cycle";
      }
    }
  });
  return cycle;
}

}  // namespace graft
