// The rewrite driver (see rewriter.h). One Driver runs all phases of a rule set over one graph
// with one Matcher, so node states computed in one phase are reused by the next.
#include "engine/rewriter.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "engine/shape_infer.h"
#include "engine/support/edit_distance.h"
#include "engine/verifier.h"

namespace graft {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class Driver {
 public:
  Driver(Graph& graph, const CompiledRules& compiled, const RewriteOptions& options,
         DiagnosticEngine& diags)
      : graph_(graph),
        compiled_(compiled),
        rules_(compiled.rules()),
        options_(options),
        diags_(diags),
        matcher_(compiled, graph) {
    result_.stats.resize(rules_.rules.size());
  }

  RewriteResult run() {
    matcher_.label_all();
    result_.nodes_labelled += graph_.size();
    for (const Phase& phase : rules_.phases) {
      ++phase_index_;
      if (!run_phase(phase)) {
        result_.ok = false;
        break;
      }
      if (options_.verify_each_phase && !verify_graph(graph_, diags_, "after phase " + phase.name)) {
        result_.ok = false;
        break;
      }
    }
    for (auto it = result_.created.begin(); it != result_.created.end();) {
      it = (*it)->is_dead() ? result_.created.erase(it) : std::next(it);
    }
    return std::move(result_);
  }

  /// Empty when `m` may be applied to the current graph; otherwise why not.
  std::string validate(const Match& m) const {
    const Rule& rule = rules_.rules[m.rule];
    std::set<const Node*> in_match(m.nodes.begin(), m.nodes.end());
    std::vector<char> is_root(rule.nodes.size(), 0);
    for (uint32_t r : rule.roots) is_root[r] = 1;
    for (uint32_t p = 0; p < rule.nodes.size(); ++p) {
      if (is_root[p]) continue;
      for (const Node* u : m.nodes[p]->users()) {
        if (!in_match.count(u)) {
          return "interior value '" + m.nodes[p]->name() + "' is also used by '" + u->name() +
                 "', outside the match (return it from the pattern, or add `where uses(" +
                 (rule.nodes[p].name.empty() ? m.nodes[p]->name() : rule.nodes[p].name) +
                 ") == 1`)";
        }
      }
    }
    // A value the replacement reads must not depend on a value it replaces.
    for (const Node* needed : needed_values(m)) {
      for (uint32_t r : rule.roots) {
        if (depends_on(needed, m.nodes[r], in_match)) {
          return "the replacement reads '" + needed->name() + "', which is computed from '" +
                 m.nodes[r]->name() + "' that it replaces: rewriting would create a cycle";
        }
      }
    }
    return "";
  }

 private:
  // ** phases **

  bool run_phase(const Phase& phase) {
    std::vector<char> enabled(rules_.rules.size(), 0);
    for (uint32_t r : phase.rules) enabled[r] = 1;
    std::vector<Node*> anchors;
    for (Node* n : graph_.nodes()) anchors.push_back(n);
    int max = phase.mode == PhaseMode::kOnce ? 1 : std::max(1, phase.max_iterations);
    for (int iteration = 1;; ++iteration) {
      std::vector<Match> matches = find_matches(anchors, enabled);
      if (matches.empty()) return true;
      if (iteration > max) {
        // The rules still matching and those that fired in the last two iterations: in a
        // ping-pong both sides show up.
        std::set<std::string> firing;
        for (const Match& m : matches) firing.insert(rules_.rules[m.rule].name);
        for (const AppliedRewrite& a : result_.applied) {
          if (a.phase_iteration >= iteration - 2 && a.phase == phase_index_) firing.insert(a.rule);
        }
        std::string names;
        for (const std::string& n : firing) names += (names.empty() ? "" : ", ") + n;
        diags_.error({}, "phase '" + phase.name + "' did not reach a fixpoint in " +
                             std::to_string(max) + " iteration" + (max == 1 ? "" : "s") +
                             ": rules still matching: " + names +
                             " (do they undo each other? raise fixpoint(max=K) if not)");
        return false;
      }
      std::vector<Node*> touched;
      std::vector<Node*> unapplied;
      if (!apply_non_overlapping(std::move(matches), iteration, &touched, &unapplied)) return false;
      if (phase.mode == PhaseMode::kOnce) return true;
      anchors = matcher_.relabel(touched);
      result_.nodes_labelled += anchors.size();
      for (Node* n : unapplied) {
        if (!n->is_dead()) anchors.push_back(n);
      }
      std::sort(anchors.begin(), anchors.end(), Graph::is_before);
      anchors.erase(std::unique(anchors.begin(), anchors.end()), anchors.end());
    }
  }

  std::vector<Match> find_matches(const std::vector<Node*>& anchors, const std::vector<char>& enabled) {
    std::vector<Match> found;
    for (Node* node : anchors) {
      if (node->is_dead()) continue;
      for (uint32_t r : matcher_.anchored_rules(node)) {
        if (!enabled[r]) continue;
        RuleStats& s = result_.stats[r];
        ++s.candidates;
        auto start = Clock::now();
        std::optional<Match> m = matcher_.match_at(r, node);
        s.seconds += seconds_since(start);
        if (!m) continue;
        ++s.matches;
        found.push_back(std::move(*m));
      }
    }
    return found;
  }

  /// Greedy by benefit, then graph order of the anchor, then rule order.
  bool apply_non_overlapping(std::vector<Match> matches, int iteration, std::vector<Node*>* touched,
                             std::vector<Node*>* unapplied) {
    std::stable_sort(matches.begin(), matches.end(), [&](const Match& a, const Match& b) {
      int ba = rules_.rules[a.rule].benefit, bb = rules_.rules[b.rule].benefit;
      if (ba != bb) return ba > bb;
      const Node* na = a.anchor(rules_.rules[a.rule]);
      const Node* nb = b.anchor(rules_.rules[b.rule]);
      if (na != nb) return Graph::is_before(na, nb);
      return a.rule < b.rule;
    });
    std::set<const Node*> claimed;
    for (const Match& m : matches) {
      const Rule& rule = rules_.rules[m.rule];
      Node* anchor = m.anchor(rule);
      bool overlaps = std::any_of(m.nodes.begin(), m.nodes.end(),
                                  [&](const Node* n) { return claimed.count(n) || n->is_dead(); });
      for (const Input& v : m.vars) {
        if (v.is_node() && (claimed.count(v.node) || v.node->is_dead())) overlaps = true;
      }
      if (overlaps) {
        if (!anchor->is_dead()) unapplied->push_back(anchor);
        continue;
      }
      auto start = Clock::now();
      std::string anchor_name = anchor->name();
      std::string declined = validate(m);
      if (!declined.empty()) {
        result_.stats[m.rule].seconds += seconds_since(start);
        continue;
      }
      std::optional<bool> applied = apply(m, touched);
      result_.stats[m.rule].seconds += seconds_since(start);
      if (!applied) return false;  // an error in the rule: reported
      if (!*applied) continue;
      claimed.insert(m.nodes.begin(), m.nodes.end());
      ++result_.stats[m.rule].applied;
      result_.applied.push_back({rule.name, anchor_name, phase_index_, iteration});
    }
    return true;
  }

  // ** applying one match **

  /// The graph nodes the replacement reads from the pattern (variables and pattern nodes).
  std::vector<const Node*> needed_values(const Match& m) const {
    const Rule& rule = rules_.rules[m.rule];
    std::vector<const Node*> out;
    std::function<void(const ReplValue&)> visit = [&](const ReplValue& v) {
      if (v.kind == ReplValue::Kind::kValue) {
        if (const Node* n = binding_node(m, v.value)) out.push_back(n);
      }
      for (const ReplValue& item : v.items) visit(item);
    };
    for (const ReplOp& op : rule.replacement) {
      for (const ReplValue& v : op.operands) visit(v);
    }
    for (const ReplValue& v : rule.results) visit(v);
    return out;
  }

  static Node* binding_node(const Match& m, const ValueRef& ref) {
    if (ref.kind == ValueRef::Kind::kVar) return m.vars[ref.index].node;
    return m.nodes[ref.index];
  }

  /// True if `target` is reachable from `from` through users, without passing through nodes
  /// the match replaces (which are gone afterwards) other than `from` itself.
  bool depends_on(const Node* target, const Node* from, const std::set<const Node*>& in_match) const {
    if (target == from) return false;  // reading the replaced value itself is the identity
    if (Graph::is_before(target, from)) return false;
    std::vector<const Node*> stack = {from};
    std::set<const Node*> seen;
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      for (const Node* u : n->users()) {
        if (u == target) return true;
        if (in_match.count(u) || Graph::is_before(target, u) || !seen.insert(u).second) continue;
        stack.push_back(u);
      }
    }
    return false;
  }

  /// Applies `m`. nullopt: a rule error (reported); false: declined (placement); true: done.
  std::optional<bool> apply(const Match& m, std::vector<Node*>* touched) {
    const Rule& rule = rules_.rules[m.rule];
    std::vector<Input> results(rule.replacement.size());
    std::vector<Node*> created;
    auto rollback = [&]() {
      for (auto it = created.rbegin(); it != created.rend(); ++it) {
        if ((*it)->is_dead() || !(*it)->users().empty()) continue;
        if ((*it)->is(NodeKind::kGetAttr)) graph_.constants().erase((*it)->target());
        graph_.erase(*it);
      }
      graph_.set_insert_point(nullptr);
    };
    Node* first_root = m.nodes[rule.roots[0]];
    for (uint32_t r : rule.roots) {
      if (Graph::is_before(m.nodes[r], first_root)) first_root = m.nodes[r];
    }
    for (size_t i = 0; i < rule.replacement.size(); ++i) {
      const ReplOp& op = rule.replacement[i];
      std::optional<Input> value = build_op(m, op, results, first_root, &created);
      if (!value) {
        rollback();
        return std::nullopt;
      }
      results[i] = *value;
    }
    // Each result must be defined before the first user of the value it replaces.
    std::set<const Node*> in_match(m.nodes.begin(), m.nodes.end());
    std::vector<Node*> replacements(rule.roots.size(), nullptr);
    for (size_t i = 0; i < rule.roots.size(); ++i) {
      Input v = resolve(m, rule.results[i], results);
      Node* root = m.nodes[rule.roots[i]];
      if (!v.is_node()) {
        diags_.error({}, "rule " + rule.name + " (" + rule.loc + "): result " + std::to_string(i + 1) +
                             " of the replacement is not a tensor (it is " +
                             (v.is_none() ? "none" : "a scalar") + ")");
        rollback();
        return std::nullopt;
      }
      for (const Node* u : root->users()) {
        if (!in_match.count(u) && v.node != root && !Graph::is_before(v.node, u)) {
          rollback();
          return false;
        }
      }
      replacements[i] = v.node;
    }
    // Redirect, then erase what is dead.
    for (size_t i = 0; i < rule.roots.size(); ++i) {
      Node* root = m.nodes[rule.roots[i]];
      if (replacements[i] == root) continue;
      for (Node* u : root->users()) touched->push_back(u);
      graph_.replace_all_uses_with(root, replacements[i]);
    }
    // Intermediate constants (the scale in `w * scale`) die once every op they fed is folded.
    for (auto it = created.rbegin(); it != created.rend(); ++it) {
      Node* n = *it;
      if (!n->is_dead() && n->is(NodeKind::kGetAttr) && n->users().empty()) {
        graph_.constants().erase(n->target());
        graph_.erase(n);
      }
    }
    std::string provenance = rule.name + " (" + rule.loc + ")";
    for (Node* n : created) {
      if (n->is_dead()) continue;
      n->meta().provenance = provenance;
      result_.created.insert(n);
      touched->push_back(n);
    }
    erase_dead(m, touched);
    name_results(m, replacements, created);
    return true;
  }

  /// Readable names: a created node that replaces a root takes over the root's name (so graph
  /// outputs keep theirs), and a folded constant read by one created op is named after that op
  /// and operand ("stem_bn.weight").
  void name_results(const Match& m, const std::vector<Node*>& replacements,
                    const std::vector<Node*>& created) {
    const Rule& rule = rules_.rules[m.rule];
    auto is_created = [&](const Node* n) {
      return std::find(created.begin(), created.end(), n) != created.end();
    };
    for (size_t i = 0; i < rule.roots.size(); ++i) {
      Node* root = m.nodes[rule.roots[i]];
      Node* r = replacements[i];
      if (root->is_dead() && r->is(NodeKind::kCallFunction) && is_created(r) &&
          graph_.find(root->name()) == nullptr) {
        graph_.rename(r, root->name());
      }
    }
    for (Node* n : created) {
      if (n->is_dead() || !n->is(NodeKind::kGetAttr) || n->users().size() != 1) continue;
      Node* user = n->users()[0];
      if (!is_created(user) || !user->is(NodeKind::kCallFunction)) continue;
      for (size_t k = 0; k < user->inputs().size(); ++k) {
        if (user->input_node(k) != n) continue;
        const OpSchema& s = *user->schema();
        size_t operand = std::min(k, s.operands.size() - 1);  // variadic items share a name
        std::string target = graph_.rename_constant(n, user->name() + "." + s.operands[operand].name);
        std::string name = target;
        std::replace(name.begin(), name.end(), '.', '_');
        graph_.rename(n, name);
        break;
      }
    }
  }

  Input resolve(const Match& m, const ReplValue& v, const std::vector<Input>& results) const {
    switch (v.kind) {
      case ReplValue::Kind::kNone: return Input::none();
      case ReplValue::Kind::kValue:
        return v.value.kind == ValueRef::Kind::kVar ? m.vars[v.value.index]
                                                    : Input::of(m.nodes[v.value.index]);
      case ReplValue::Kind::kResult: return results[v.index];
      case ReplValue::Kind::kScalar: return Input::of(v.scalar);
      case ReplValue::Kind::kAttrVar: {
        const AttrValue& a = m.attr_vars[v.index];
        if (const auto* i = std::get_if<int64_t>(&a)) return Input::of(Scalar{static_cast<double>(*i), true});
        if (const auto* d = std::get_if<double>(&a)) return Input::of(Scalar{*d, false});
        if (const auto* b = std::get_if<bool>(&a)) return Input::of(Scalar{*b ? 1.0 : 0.0, true});
        return Input::none();
      }
      case ReplValue::Kind::kLiteral: return Input::none();
      case ReplValue::Kind::kCoalesce: {
        Input first = resolve(m, v.items[0], results);
        return first.is_none() ? resolve(m, v.items[1], results) : first;
      }
    }
    return Input::none();
  }

  /// Creates one replacement op (or a folded constant). nullopt after reporting an error.
  std::optional<Input> build_op(const Match& m, const ReplOp& op, const std::vector<Input>& results,
                                Node* first_root, std::vector<Node*>* created) {
    const Rule& rule = rules_.rules[m.rule];
    auto error = [&](const std::string& message) -> std::optional<Input> {
      diags_.error({}, "rule " + rule.name + " (" + (op.loc.empty() ? rule.loc : op.loc) +
                           "), applied at '" + m.anchor(rule)->name() + "': " + message);
      return std::nullopt;
    };
    std::vector<Input> inputs;
    for (const ReplValue& v : op.operands) inputs.push_back(resolve(m, v, results));
    std::vector<AttrValue> attrs = Graph::default_attrs(*op.schema);
    for (size_t a = 0; a < op.attrs.size() && a < attrs.size(); ++a) {
      const ReplValue& v = op.attrs[a];
      if (v.kind == ReplValue::Kind::kNone) continue;
      AttrValue value = v.kind == ReplValue::Kind::kLiteral ? v.literal : m.attr_vars[v.index];
      std::string err;
      std::optional<AttrValue> coerced = coerce_attr(op.schema->attrs[a], value, &err);
      if (!coerced) return error(op.schema->name + "'s " + op.schema->attrs[a].name + ": " + err);
      attrs[a] = std::move(*coerced);
    }
    // Place it right after the latest value it reads, or before the match when it reads none.
    Node* latest = nullptr;
    bool constant = true;
    for (const Input& in : inputs) {
      if (!in.is_node()) continue;
      if (latest == nullptr || Graph::is_before(latest, in.node)) latest = in.node;
      if (!in.node->is(NodeKind::kGetAttr)) constant = false;
    }
    // Skipping the nodes this match just created keeps the replacement in its written order.
    Node* position = latest != nullptr ? latest->next() : first_root;
    while (position != nullptr && std::find(created->begin(), created->end(), position) != created->end()) {
      position = position->next();
    }
    graph_.set_insert_point(position);
    std::string hint = op.name.empty() ? op.schema->name : op.name;
    Node* node = graph_.add_call(*op.schema, std::move(inputs), std::move(attrs), hint);
    created->push_back(node);
    graph_.set_insert_point(nullptr);
    std::string err;
    std::optional<TensorType> type = infer_node_type(*node, &err);
    if (!type) return error(op.schema->name + " rejects its inputs: " + err);
    node->meta().type = type;
    if (!constant || !options_.fold) {
      if (op.must_fold) {
        if (!options_.fold) return error("fold(...) needs constant folding, which is not enabled");
        for (const Input& in : node->inputs()) {
          if (in.is_node() && !in.node->is(NodeKind::kGetAttr)) {
            return error("fold(...) is not constant here: '" + in.node->name() + "' is not a constant");
          }
        }
      }
      return Input::of(node);
    }
    return fold(m, node, created, error);
  }

  template <typename ErrorFn>
  std::optional<Input> fold(const Match& m, Node* node, std::vector<Node*>* created, ErrorFn& error) {
    std::vector<const ConstantTensor*> operands;
    for (const Input& in : node->inputs()) {
      operands.push_back(in.is_node() ? graph_.constants().find(in.node->target()) : nullptr);
    }
    std::string err;
    std::optional<ConstantTensor> value = options_.fold(*node, operands, &err);
    if (!value) return error("cannot fold " + node->target() + ": " + err);
    const Rule& rule = rules_.rules[m.rule];
    std::string base = m.anchor(rule)->name() + "." + node->name();
    std::string target = graph_.constants().unique_name(base);
    graph_.constants().set(target, std::move(*value));
    graph_.set_insert_point(node);
    std::string name = target;
    std::replace(name.begin(), name.end(), '.', '_');
    Node* constant = graph_.add_get_attr(name, target);
    graph_.set_insert_point(nullptr);
    created->push_back(constant);
    graph_.erase(node);
    return Input::of(constant);
  }

  void erase_dead(const Match& m, std::vector<Node*>* touched) {
    std::vector<Node*> work(m.nodes.rbegin(), m.nodes.rend());
    for (const Input& v : m.vars) {
      if (v.is_node()) work.push_back(v.node);
    }
    while (!work.empty()) {
      Node* n = work.back();
      work.pop_back();
      if (n->is_dead()) continue;
      if (!n->users().empty()) continue;
      if (!n->is(NodeKind::kCallFunction) && !n->is(NodeKind::kGetAttr)) continue;
      std::vector<Node*> inputs;
      for (const Input& in : n->inputs()) {
        if (in.is_node()) inputs.push_back(in.node);
      }
      graph_.erase(n);
      for (Node* in : inputs) {
        touched->push_back(in);  // its use count changed: `uses(...)` conditions may now hold
        work.push_back(in);
      }
    }
  }

  Graph& graph_;
  const CompiledRules& compiled_;
  const RuleSet& rules_;
  const RewriteOptions& options_;
  DiagnosticEngine& diags_;
  Matcher matcher_;
  RewriteResult result_;
  int phase_index_ = -1;

  friend std::optional<Explanation> graft::explain_match(const Graph&, const CompiledRules&,
                                                         const std::string&, const std::string&,
                                                         DiagnosticEngine&);
};

}  // namespace

RewriteResult rewrite_graph(Graph& graph, const CompiledRules& rules, const RewriteOptions& options,
                            DiagnosticEngine& diags) {
  return Driver(graph, rules, options, diags).run();
}

std::optional<Explanation> explain_match(const Graph& graph, const CompiledRules& rules,
                                         const std::string& rule, const std::string& node,
                                         DiagnosticEngine& diags) {
  int r = rules.rules().find_rule(rule);
  if (r < 0) {
    std::vector<std::string> names;
    for (const Rule& x : rules.rules().rules) names.push_back(x.name);
    diags.error({}, "--explain: no rule named '" + rule + "'" + did_you_mean(rule, names));
    return std::nullopt;
  }
  Node* n = graph.find(node);
  if (n == nullptr) {
    std::vector<std::string> names;
    for (const Node* g : graph.nodes()) names.push_back(g->name());
    diags.error({}, "--explain: no node named '" + node + "' in the model" + did_you_mean(node, names));
    return std::nullopt;
  }
  Matcher matcher(rules, graph);
  matcher.label_all();
  Explanation why;
  std::optional<Match> m = matcher.match_at(static_cast<uint32_t>(r), n, &why);
  const Rule& x = rules.rules().rules[static_cast<size_t>(r)];
  if (m) {
    RewriteOptions options;
    std::string declined = Driver(const_cast<Graph&>(graph), rules, options, diags).validate(*m);
    if (!declined.empty()) {
      why.matched = false;
      why.reason = "the pattern matches, but the driver declines it: " + declined;
    } else {
      why.reason = "matches: " + x.name + " (" + x.loc + ") rewrites at '" + node + "'";
    }
  }
  return why;
}

}  // namespace graft
