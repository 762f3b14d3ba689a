// Applying one match (see apply_match.h).
#include "engine/rewrite/apply_match.h"

#include <algorithm>

#include "engine/ops/shape_infer.h"
#include "engine/rewrite/match_check.h"
#include "engine/rewrite/rule_location.h"

namespace graft {
namespace {

/// Whether a replacement value of type `to` may stand for a value of type `from`: the same
/// dtype and rank, and equal dims where both are known (an unknown "?" fits any, as in the
/// loader's check of a node's meta). Untyped values fit anything.
bool type_fits(const TensorType* from, const TensorType* to) {
  if (from == to || from == nullptr || to == nullptr) return true;  // types are unique
  if (from->dtype != to->dtype || from->rank() != to->rank()) return false;
  for (size_t d = 0; d < from->shape.size(); ++d) {
    Dim a = from->shape[d], b = to->shape[d];
    if (a != b && a != unknown_dim() && b != unknown_dim()) return false;
  }
  return true;
}

/// Where `rule` returns its result `i` ("fuse.rules:14:12"), or the rule's own position.
DiagLocation result_location(const Rule& rule, size_t i) {
  SourceRange range = i < rule.result_ranges.size() ? rule.result_ranges[i] : SourceRange{};
  const std::string& loc = i < rule.result_locs.size() ? rule.result_locs[i] : rule.loc;
  return rule_location(rule, range, loc);
}

}  // namespace

ApplyOutcome MatchApplier::apply(const Match& m, std::vector<Node*>* touched,
                                 std::vector<const Node*>* created) {
  const Rule& rule = rules_.rules[m.rule];
  Node* first_root = m.nodes[rule.roots[0]];
  for (uint32_t r : rule.roots) {
    if (Graph::is_before(m.nodes[r], first_root)) first_root = m.nodes[r];
  }
  if (!build(m, first_root)) {
    rollback();
    return ApplyOutcome::kRuleError;
  }
  ApplyOutcome placed = place_results(m, first_root);
  if (placed != ApplyOutcome::kApplied) {
    rollback();
    return placed;
  }
  // The created nodes are touched before the users they get. relabel() labels each node after
  // its operands whatever the order, but in this one a user finds its operands labelled
  // already instead of waiting for them on its stack.
  const SharedString& provenance = provenance_of(m.rule);
  for (Node* n : created_) {
    if (n->is_dead()) continue;
    n->meta().provenance = provenance;
    created->push_back(n);
    touched->push_back(n);
  }
  // Redirect, then erase what is dead.
  for (size_t i = 0; i < rule.roots.size(); ++i) {
    Node* root = m.nodes[rule.roots[i]];
    if (replacements_[i] == root) continue;
    for (Node* u : root->users()) touched->push_back(u);
    graph_.replace_all_uses_with(root, replacements_[i]);
    if (replaced_by_.size() <= root->id()) replaced_by_.resize(graph_.id_bound(), nullptr);
    replaced_by_[root->id()] = replacements_[i];
  }
  erase_dead(m, touched);
  name_roots(m);
  builder_.name_unnamed();
  return ApplyOutcome::kApplied;
}

/// Builds the replacement ops into results_ and created_; false after reporting an error.
bool MatchApplier::build(const Match& m, Node* first_root) {
  const Rule& rule = rules_.rules[m.rule];
  results_.assign(rule.replacement.size(), Input::none());
  created_.clear();
  builder_.begin_match();
  // An op that replaces a root takes the root's name (name_roots); its folded operands are
  // named after that from the start ("stem_bn.weight").
  final_names_.assign(rule.replacement.size(), nullptr);
  for (size_t i = 0; i < rule.roots.size(); ++i) {
    if (rule.results[i].kind == ReplValue::Kind::kResult) {
      final_names_[rule.results[i].index] = &m.nodes[rule.roots[i]]->name();
    }
  }
  static const std::string kNoName;
  for (size_t i = 0; i < rule.replacement.size(); ++i) {
    const std::string& final_name = final_names_[i] != nullptr ? *final_names_[i] : kNoName;
    std::optional<Input> value =
        builder_.build_op(m, rule.replacement[i], final_name, first_root, results_, &created_);
    if (!value) return false;
    results_[i] = *value;
  }
  return true;
}

/// Sets replacements_ to the graph node of each result. Each must be a tensor of the type of
/// the value it replaces (else a rule error) and be defined before that value's first user
/// outside the match (else the match is declined).
ApplyOutcome MatchApplier::place_results(const Match& m, Node* first_root) {
  const Rule& rule = rules_.rules[m.rule];
  NodeSet in_match(m.nodes);
  replacements_.assign(rule.roots.size(), nullptr);
  for (size_t i = 0; i < rule.roots.size(); ++i) {
    Input v = ReplacementBuilder::resolve(m, rule.results[i], results_);
    Node* root = m.nodes[rule.roots[i]];
    if (!v.is_node()) {
      diags_.error(result_location(rule, i),
                   "rule '" + rule.name + "': result " + std::to_string(i + 1) +
                       " of the replacement is not a tensor (it is " +
                       (v.is_none() ? "none" : "a scalar") + ")");
      return ApplyOutcome::kRuleError;
    }
    // A whole result folded to a constant is read from the graph.
    Node* node = builder_.in_graph(v.node, root->name(), first_root, &created_);
    if (!type_fits(root->type(), node->type())) {
      report_type_change(rule, i, *root, *node->type());
      return ApplyOutcome::kRuleError;
    }
    for (const Node* u : root->users()) {
      if (!in_match.contains(u) && node != root && !Graph::is_before(node, u)) {
        return ApplyOutcome::kDeclined;
      }
    }
    replacements_[i] = node;
  }
  return ApplyOutcome::kApplied;
}

/// Erases what the current match created. Nothing created is named yet, and no folded
/// constant is in the store (name_unnamed).
void MatchApplier::rollback() {
  // Until none is left: a folded operand's get_attr is created after the op that reads it, so
  // one pass from the back finds it still read.
  for (bool erased = true; erased;) {
    erased = false;
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
      if ((*it)->is_dead() || !(*it)->users().empty()) continue;
      graph_.erase(*it);
      erased = true;
    }
  }
  graph_.set_insert_point(nullptr);
  builder_.forget_unnamed();
}

/// A replacement that changes the type of the value it replaces would leave that value's
/// users with stale types (the verifier would blame them, not the rule): the error is the
/// rule's, at the `return` of result `i`.
void MatchApplier::report_type_change(const Rule& rule, size_t i, const Node& root,
                                      const TensorType& to) {
  diags_.error(result_location(rule, i),
               "rule '" + rule.name + "' changes the type of '" + root.name() + "' from " +
                   type_to_string(*root.type()) + " to " + type_to_string(to) +
                   " (a replacement must keep the type of the value it replaces)");
}

/// An op that replaces a root takes over the root's name, so graph outputs and readers of the
/// printed graph keep theirs.
void MatchApplier::name_roots(const Match& m) {
  const Rule& rule = rules_.rules[m.rule];
  // Last root first: a value returned for two roots is named after the last, as build()
  // named its folded operands.
  for (size_t i = rule.roots.size(); i-- > 0;) {
    Node* root = m.nodes[rule.roots[i]];
    Node* r = replacements_[i];
    // rename() makes the name unique: were the root's name taken again, r would get a suffix.
    if (root->is_dead() && r->name().empty() && r->is(NodeKind::kCallFunction)) {
      graph_.rename(r, root->name());
    }
  }
}

/// Erases the match's nodes and variables' producers that no longer have users, and then
/// their operands that no longer have any.
void MatchApplier::erase_dead(const Match& m, std::vector<Node*>* touched) {
  const size_t first_touched = touched->size();
  std::vector<Node*>& work = erase_work_;
  work.assign(m.nodes.rbegin(), m.nodes.rend());
  for (const Input& v : m.vars) {
    if (v.is_node()) work.push_back(v.node);
  }
  while (!work.empty()) {
    Node* n = work.back();
    work.pop_back();
    if (n->is_dead()) continue;
    if (!n->users().empty()) continue;
    if (!n->is(NodeKind::kCallFunction) && !n->is(NodeKind::kGetAttr)) continue;
    std::vector<Node*>& inputs = erase_inputs_;
    inputs.clear();
    for (const Input& in : n->inputs()) {
      if (in.is_node()) inputs.push_back(in.node);
    }
    graph_.erase(n);
    for (Node* in : inputs) {
      touched->push_back(in);  // its use count changed: `uses(...)` conditions may now hold
      work.push_back(in);
    }
  }
  // Most of those inputs were erased after them (a folded match's weights): relabel() skips
  // dead nodes, and a pass over a big graph need not hold them.
  touched->erase(std::remove_if(touched->begin() + static_cast<std::ptrdiff_t>(first_touched),
                                touched->end(), [](const Node* n) { return n->is_dead(); }),
                 touched->end());
}

Node* MatchApplier::replacement_of(Node* n) const {
  for (int hops = 0; n != nullptr && n->is_dead(); ++hops) {
    if (n->id() >= replaced_by_.size() || hops > 64) return nullptr;
    n = replaced_by_[n->id()];
  }
  return n;
}

/// "fuse_conv_bn (fuse.rules:12)", made once per rule and shared by the nodes it creates.
const SharedString& MatchApplier::provenance_of(uint32_t rule_index) {
  if (provenance_.empty()) provenance_.resize(rules_.rules.size());
  SharedString& p = provenance_[rule_index];
  if (p.empty()) {
    const Rule& rule = rules_.rules[rule_index];
    p = SharedString(rule.name + " (" + rule.loc + ")");
  }
  return p;
}

}  // namespace graft
