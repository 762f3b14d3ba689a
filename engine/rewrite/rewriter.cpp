// The rewrite driver (see rewriter.h). One Driver runs all phases of a rule set over one graph
// with one Matcher, so node states computed in one phase are reused by the next.
#include "engine/rewrite/rewriter.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "engine/ir/verifier.h"
#include "engine/match/match_conditions.h"
#include "engine/ops/shape_infer.h"
#include "engine/rewrite/type_memo.h"
#include "engine/support/check.h"
#include "engine/support/edit_distance.h"

namespace graft {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// The few nodes of one match: a linear scan beats a tree or hash set at this size.
class NodeSet {
 public:
  explicit NodeSet(const std::vector<Node*>& nodes) : nodes_(nodes) {}
  bool contains(const Node* n) const { return std::find(nodes_.begin(), nodes_.end(), n) != nodes_.end(); }

 private:
  const std::vector<Node*>& nodes_;
};

class Driver {
 public:
  Driver(Graph& graph, const CompiledRules& compiled, const RewriteOptions& options,
         DiagnosticEngine& diags)
      : graph_(graph),
        compiled_(compiled),
        rules_(compiled.rules()),
        options_(options),
        diags_(diags),
        matcher_(compiled, graph),
        first_id_bound_(graph.id_bound()),
        created_limit_(options.max_created_nodes != 0 ? options.max_created_nodes
                                                      : default_created_nodes_limit(graph.size())) {
    result_.stats.resize(rules_.rules.size());
    matcher_.set_binding_budget(options.max_binding_steps);
    matcher_.set_cache_budget(options.matcher_cache_budget);
  }

  RewriteResult run() {
    // The first phase's first matches are found while labelling, at each anchor right after it
    // is labelled: on a big graph a separate pass would fetch every anchor's pattern nodes from
    // memory a second time. Patterns that reach some of their nodes through users (multi-output
    // joins) need those users' states, so they wait for the whole graph's labels.
    if (rules_.phases.empty()) {
      first_anchors_ = matcher_.label_all();
    } else {
      for (const Rule& rule : rules_.rules) joins_users_.push_back(joins_users(rule));
      std::vector<char> early = enabled_in(rules_.phases[0], /*joining=*/false);
      first_anchors_ = matcher_.label_all(
          [&](Node* anchor) { find_matches_at(anchor, early, &first_matches_); });
    }
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
    std::erase_if(result_.created, [](const Node* n) { return n->is_dead(); });
    return std::move(result_);
  }

  /// Empty when `m` may be applied to the current graph; otherwise why not.
  std::string validate(const Match& m) const {
    const Rule& rule = rules_.rules[m.rule];
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
    for_each_needed_value(m, [&](const Node* needed) {
      for (uint32_t r : rule.roots) {
        if (cycle.empty() && depends_on(needed, m.nodes[r], in_match)) {
          cycle = "the replacement reads '" + needed->name() + "', which is computed from '" +
                  m.nodes[r]->name() + "' that it replaces: rewriting would create a cycle";
        }
      }
    });
    return cycle;
  }

 private:
  /// The current match's folded constants not in the graph (yet); see fold().
  struct Folded {
    std::unique_ptr<Node> node;  // detached, typed
    ConstantTensor value;
    Node* materialized = nullptr;  // its get_attr once in the graph
  };

  /// What the driver remembers about one replacement op between matches: the last type it
  /// inferred for it, and the counter of its name hint.
  struct OpMemo {
    TypeMemo type{/*attrs_interned=*/true};  // its ops read graph-interned lists (attrs_of)
    Graph::FreshNameMemo name;
    // The op's attributes at the last match, as the graph's list, and the `$` variables' values
    // and matched op names they were made from (none for literal ones); see attrs_of. Unused (null)
    // for an op whose attributes read dims bound by `where`.
    const AttrList* attrs = nullptr;
    AttrList attrs_from;
    std::unique_ptr<PreparedFold> prepared;  // for the operands `type` remembers, or none
    uint64_t prepared_for = ~uint64_t{0};    // the generation of `type` it was prepared for
  };

  /// A root's replacement op, named once the root is gone (name_created).
  struct UnnamedCall {
    Node* node;
    std::string_view hint;  // the op's name or its schema's, owned by the rules
    Graph::FreshNameMemo* name_memo;
  };

  // ** phases **

  /// By rule: 1 for the rules of `phase`; with `joining` given, only for those whose pattern
  /// does (true) or does not (false) join through users (joins_users_).
  std::vector<char> enabled_in(const Phase& phase, std::optional<bool> joining = {}) const {
    std::vector<char> enabled(rules_.rules.size(), 0);
    for (uint32_t r : phase.rules) {
      enabled[r] = !joining || static_cast<bool>(joins_users_[r]) == *joining;
    }
    return enabled;
  }

  /// True if binding `rule` can reach a pattern node only through the users of a bound one: a
  /// second root, or a node that no root reads through operands.
  static bool joins_users(const Rule& rule) {
    if (rule.roots.size() != 1) return true;
    std::vector<char> reached(rule.nodes.size(), 0);
    std::vector<uint32_t> work = {rule.roots[0]};
    reached[rule.roots[0]] = 1;
    while (!work.empty()) {
      uint32_t p = work.back();
      work.pop_back();
      for (const PatAlt& alt : rule.nodes[p].alts) {
        for (const PatValue& v : alt.operands) {
          if (v.kind == PatValue::Kind::kNode && !reached[v.index]) {
            reached[v.index] = 1;
            work.push_back(v.index);
          }
        }
      }
    }
    return std::find(reached.begin(), reached.end(), 0) != reached.end();
  }

  bool run_phase(const Phase& phase) {
    std::vector<char> enabled = enabled_in(phase);
    // The first phase starts from label_all's anchors; later ones walk the rewritten graph.
    std::vector<Node*> anchors;
    if (phase_index_ == 0) {
      anchors = std::move(first_anchors_);
    } else {
      for (Node* n : graph_.nodes()) {
        if (!matcher_.anchored_rules(n).empty()) anchors.push_back(n);
      }
    }
    int max = phase.mode == PhaseMode::kOnce ? 1 : std::max(1, phase.max_iterations);
    for (int iteration = 1;; ++iteration) {
      std::vector<Match> matches;
      if (phase_index_ == 0 && iteration == 1) {
        // Found while labelling (run()); the rules that join through users are still to do.
        matches = std::move(first_matches_);
        std::vector<char> joining = enabled_in(phase, /*joining=*/true);
        for (Node* node : anchors) find_matches_at(node, joining, &matches);
      } else {
        for (Node* node : anchors) find_matches_at(node, enabled, &matches);
      }
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
      // Relabel even after a `once` phase: the next phase matches on these states.
      anchors = matcher_.relabel(touched);
      if (phase.mode == PhaseMode::kOnce) return true;
      result_.nodes_labelled += anchors.size();
      // relabel() returns its region without repeats; the overlapped matches' anchors, when
      // there are any, join it unless they are in it already. The order of the anchors does not
      // matter: apply_non_overlapping orders the matches.
      if (!unapplied.empty()) {
        std::vector<char> listed(graph_.id_bound(), 0);
        for (const Node* n : anchors) listed[n->id()] = 1;
        for (Node* n : unapplied) {
          if (n->is_dead() || listed[n->id()]) continue;
          listed[n->id()] = 1;
          anchors.push_back(n);
        }
      }
    }
  }

  /// Now, when rules are timed (RewriteOptions::time_rules); otherwise no clock is read.
  Clock::time_point timer_start() const {
    return options_.time_rules ? Clock::now() : Clock::time_point{};
  }
  /// Adds the time since `start` (from timer_start) to `s`, when rules are timed.
  void charge(RuleStats& s, Clock::time_point start) const {
    if (options_.time_rules) s.seconds += seconds_since(start);
  }

  /// Appends the matches of the `enabled` rules anchored at `node` to `found`. The order of
  /// `found` does not matter: apply_non_overlapping sorts it (one match per anchor and rule).
  void find_matches_at(Node* node, const std::vector<char>& enabled, std::vector<Match>* found) {
    if (node->is_dead()) return;
    Matcher::AnchorMatches at(matcher_, node);
    for (uint32_t r : matcher_.anchored_rules(node)) {
      if (!enabled[r]) continue;
      RuleStats& s = result_.stats[r];
      ++s.candidates;
      Clock::time_point start = timer_start();
      std::optional<Match> m = at.match(r);
      charge(s, start);
      if (matcher_.gave_up()) warn_gave_up(r, *node);
      if (!m) continue;
      ++s.matches;
      found->push_back(std::move(*m));
    }
  }

  /// Once per rule and node: the binder ran out of steps there (Matcher::gave_up), so the
  /// rule was not tried to the end.
  void warn_gave_up(uint32_t r, const Node& node) {
    const Rule& rule = rules_.rules[r];
    if (!gave_up_.emplace(r, node.name()).second) return;
    diags_.warning({}, "rule " + rule.name + " (" + rule.loc + "): skipped at node '" +
                           node.name() + "': no match found or ruled out within " +
                           std::to_string(matcher_.binding_budget()) + " binding steps (" +
                           kGaveUpHint + ")");
  }

  /// Greedy by benefit, then graph order of the anchor, then rule order.
  bool apply_non_overlapping(std::vector<Match> matches, int iteration, std::vector<Node*>* touched,
                             std::vector<Node*>* unapplied) {
    // Sorted as keys, each read once: a Match owns four vectors (moving them around is most of
    // a sort's time), and comparing anchors' positions is a cache miss per read on big graphs.
    struct Key {
      int benefit;
      uint64_t order;
      uint32_t rule;
      uint32_t index;  // ties (same anchor and rule) keep the order they were found in
      bool operator<(const Key& o) const {
        if (benefit != o.benefit) return benefit > o.benefit;
        return std::tie(order, rule, index) < std::tie(o.order, o.rule, o.index);
      }
    };
    std::vector<Key> keys;
    keys.reserve(matches.size());
    for (uint32_t i = 0; i < matches.size(); ++i) {
      const Rule& rule = rules_.rules[matches[i].rule];
      keys.push_back({rule.benefit, matches[i].anchor(rule)->order(), matches[i].rule, i});
    }
    std::sort(keys.begin(), keys.end());
    // Nodes of applied matches, by id (ids of nodes created meanwhile are past the end).
    std::vector<char> claimed(graph_.id_bound(), 0);
    auto is_claimed = [&](const Node* n) { return n->id() < claimed.size() && claimed[n->id()]; };
    for (size_t k = 0; k < keys.size(); ++k) {
      const Key& key = keys[k];
      if (k + kPrefetchAhead < keys.size()) prefetch_match(matches[keys[k + kPrefetchAhead].index]);
      Match& m = matches[key.index];
      if (!within_growth_limit()) return false;
      const Rule& rule = rules_.rules[m.rule];
      Node* anchor = m.anchor(rule);
      bool overlaps = std::any_of(m.nodes.begin(), m.nodes.end(),
                                  [&](const Node* n) { return is_claimed(n) || n->is_dead(); });
      // A variable only reads its value: when an earlier match of this pass replaced that value
      // (conv+relu feeding the next conv+relu), read the replacement instead — the same value —
      // and check the conditions again on it.
      bool rebound = false;
      for (Input& v : m.vars) {
        if (!v.is_node() || !v.node->is_dead()) continue;
        Node* now = replacement_of(v.node);
        if (now == nullptr) {
          overlaps = true;
        } else {
          v.node = now;
          rebound = true;
        }
      }
      if (!overlaps && rebound &&
          !conditions_hold(rule, m.nodes, m.vars, m.attr_vars, nullptr, &m.symbols)) {
        overlaps = true;
      }
      if (overlaps) {
        if (!anchor->is_dead()) unapplied->push_back(anchor);
        continue;
      }
      Clock::time_point start = timer_start();
      std::string anchor_name = anchor->name();
      std::string declined = validate(m);
      if (!declined.empty()) {
        charge(result_.stats[m.rule], start);
        continue;
      }
      std::optional<bool> applied = apply(m, touched);
      charge(result_.stats[m.rule], start);
      if (!applied) return false;  // an error in the rule: reported
      if (!*applied) continue;
      for (const Node* n : m.nodes) {
        if (n->id() < claimed.size()) claimed[n->id()] = 1;
      }
      ++result_.stats[m.rule].applied;
      result_.applied.push_back({rule.name, anchor_name, phase_index_, iteration});
    }
    return true;
  }

  /// How many matches ahead apply_non_overlapping fetches the nodes of.
  static constexpr size_t kPrefetchAhead = 2;

  /// Asks the hardware to fetch the nodes `m` binds into the cache. On a large graph they were
  /// last read when the match was found, a whole pass of labelling earlier, and applying a
  /// match waits on a cache miss at each node it reads; fetched a few matches ahead, those
  /// misses overlap the work on the matches in between.
  static void prefetch_match(const Match& m) {
    auto fetch = [](const Node* n) {
      const char* p = reinterpret_cast<const char*>(n);
      for (size_t line = 0; line < sizeof(Node); line += 64) __builtin_prefetch(p + line);
    };
    for (const Node* n : m.nodes) fetch(n);
    for (const Input& v : m.vars) {
      if (v.is_node()) fetch(v.node);
    }
  }

  /// False, after reporting, once the rewrites have created more nodes than allowed. Checked
  /// before every rewrite: one fixpoint iteration of a doubling rule creates as many nodes as
  /// the graph has, so checking between iterations could overshoot the limit by the graph's
  /// whole size.
  bool within_growth_limit() {
    size_t created = graph_.id_bound() - first_id_bound_;
    if (created <= created_limit_) return true;
    // The rules that fired most in this phase are the likely culprits.
    std::map<std::string, uint64_t> fired;
    for (const AppliedRewrite& a : result_.applied) {
      if (a.phase == phase_index_) ++fired[a.rule];
    }
    std::vector<std::pair<uint64_t, std::string>> by_count;
    for (const auto& [rule, n] : fired) by_count.push_back({n, rule});
    std::sort(by_count.rbegin(), by_count.rend());
    std::string names;
    for (size_t i = 0; i < by_count.size() && i < 3; ++i) {
      names += (i == 0 ? "" : ", ") + by_count[i].second + " (" + std::to_string(by_count[i].first) +
               " rewrites)";
    }
    diags_.error({}, "phase '" + rules_.phases[phase_index_].name + "' stopped: " +
                         std::to_string(created) + " nodes were created in a graph of " +
                         std::to_string(first_id_bound_) + " (limit " + std::to_string(created_limit_) +
                         "); the rules that fired most: " + names +
                         " (does a replacement match its own pattern again?)");
    return false;
  }

  // ** applying one match **

  /// Calls `fn` with each graph node the replacement reads from the pattern (variables and
  /// pattern nodes), as often as it is read.
  template <typename Fn>
  void for_each_needed_value(const Match& m, const Fn& fn) const {
    const Rule& rule = rules_.rules[m.rule];
    for (const ReplOp& op : rule.replacement) {
      for (const ReplValue& v : op.operands) visit_needed(m, v, fn);
    }
    for (const ReplValue& v : rule.results) visit_needed(m, v, fn);
  }

  template <typename Fn>
  static void visit_needed(const Match& m, const ReplValue& v, const Fn& fn) {
    if (v.kind == ReplValue::Kind::kValue) {
      if (const Node* n = binding_node(m, v.value)) fn(n);
    }
    for (const ReplValue& item : v.items) visit_needed(m, item, fn);
  }

  static Node* binding_node(const Match& m, const ValueRef& ref) {
    if (ref.kind == ValueRef::Kind::kVar) return m.vars[ref.index].node;
    return m.nodes[ref.index];
  }

  /// True if `target` is reachable from `from` through users, without passing through nodes
  /// the match replaces (which are gone afterwards) other than `from` itself.
  bool depends_on(const Node* target, const Node* from, const NodeSet& in_match) const {
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

  /// Applies `m`. nullopt: a rule error (reported); false: declined (placement); true: done.
  std::optional<bool> apply(const Match& m, std::vector<Node*>* touched) {
    const Rule& rule = rules_.rules[m.rule];
    // Scratch kept across matches: a rewrite should not allocate for its bookkeeping.
    std::vector<Input>& results = apply_results_;
    results.assign(rule.replacement.size(), Input::none());
    std::vector<Node*>& created = apply_created_;
    created.clear();
    folded_count_ = 0;
    // Nothing created is named yet, and no folded constant is in the store (name_created).
    auto rollback = [&]() {
      for (auto it = created.rbegin(); it != created.rend(); ++it) {
        if ((*it)->is_dead() || !(*it)->users().empty()) continue;
        graph_.erase(*it);
      }
      graph_.set_insert_point(nullptr);
      unnamed_calls_.clear();
      unnamed_constants_.clear();
    };
    Node* first_root = m.nodes[rule.roots[0]];
    for (uint32_t r : rule.roots) {
      if (Graph::is_before(m.nodes[r], first_root)) first_root = m.nodes[r];
    }
    // An op that replaces a root takes the root's name (name_created); its folded operands are
    // named after that from the start ("stem_bn.weight").
    std::vector<const std::string*>& final_names = apply_final_names_;
    final_names.assign(rule.replacement.size(), nullptr);
    for (size_t i = 0; i < rule.roots.size(); ++i) {
      if (rule.results[i].kind == ReplValue::Kind::kResult) {
        final_names[rule.results[i].index] = &m.nodes[rule.roots[i]]->name();
      }
    }
    static const std::string kNoName;
    for (size_t i = 0; i < rule.replacement.size(); ++i) {
      const ReplOp& op = rule.replacement[i];
      const std::string& final_name = final_names[i] != nullptr ? *final_names[i] : kNoName;
      std::optional<Input> value = build_op(m, op, final_name, first_root, results, &created);
      if (!value) {
        rollback();
        return std::nullopt;
      }
      results[i] = *value;
    }
    // Each result must be defined before the first user of the value it replaces.
    NodeSet in_match(m.nodes);
    std::vector<Node*>& replacements = apply_replacements_;
    replacements.assign(rule.roots.size(), nullptr);
    for (size_t i = 0; i < rule.roots.size(); ++i) {
      Input v = resolve(m, rule.results[i], results);
      Node* root = m.nodes[rule.roots[i]];
      if (!v.is_node()) {
        diags_.error(DiagLocation::in_file(result_loc(rule, i)),
                     "rule '" + rule.name + "': result " + std::to_string(i + 1) +
                         " of the replacement is not a tensor (it is " +
                         (v.is_none() ? "none" : "a scalar") + ")");
        rollback();
        return std::nullopt;
      }
      if (Folded* f = folded_of(v.node)) {  // the whole result folded to a constant
        v = Input::of(f->materialized ? f->materialized : materialize(*f, root->name(), first_root, &created));
      }
      if (!type_fits(root->type(), v.node->type())) {
        report_type_change(rule, i, *root, *v.node->type());
        rollback();
        return std::nullopt;
      }
      for (const Node* u : root->users()) {
        if (!in_match.contains(u) && v.node != root && !Graph::is_before(v.node, u)) {
          rollback();
          return false;
        }
      }
      replacements[i] = v.node;
    }
    // The created nodes are touched before the users they get. relabel() labels each node after
    // its operands whatever the order, but in this one a user finds its operands labelled
    // already instead of waiting for them on its stack.
    const SharedString& provenance = provenance_of(m.rule);
    for (Node* n : created) {
      if (n->is_dead()) continue;
      n->meta().provenance = provenance;
      result_.created.push_back(n);
      touched->push_back(n);
    }
    // Redirect, then erase what is dead.
    for (size_t i = 0; i < rule.roots.size(); ++i) {
      Node* root = m.nodes[rule.roots[i]];
      if (replacements[i] == root) continue;
      for (Node* u : root->users()) touched->push_back(u);
      graph_.replace_all_uses_with(root, replacements[i]);
      if (replaced_by_.size() <= root->id()) replaced_by_.resize(graph_.id_bound(), nullptr);
      replaced_by_[root->id()] = replacements[i];
    }
    erase_dead(m, touched);
    name_created(m, replacements);
    return true;
  }

  /// Whether a replacement value of type `to` may stand for a value of type `from`: the same
  /// dtype and rank, and equal dims where both are known (an unknown "?" fits any, as in the
  /// loader's check of a node's meta). Untyped values fit anything.
  static bool type_fits(const TensorType* from, const TensorType* to) {
    if (from == to || from == nullptr || to == nullptr) return true;  // types are unique
    if (from->dtype != to->dtype || from->rank() != to->rank()) return false;
    for (size_t d = 0; d < from->shape.size(); ++d) {
      Dim a = from->shape[d], b = to->shape[d];
      if (a != b && a != unknown_dim() && b != unknown_dim()) return false;
    }
    return true;
  }

  /// Where `rule` returns its result `i` ("fuse.rules:14:12"), or the rule's own position.
  static const std::string& result_loc(const Rule& rule, size_t i) {
    return i < rule.result_locs.size() && !rule.result_locs[i].empty() ? rule.result_locs[i]
                                                                        : rule.loc;
  }

  /// A replacement that changes the type of the value it replaces would leave that value's
  /// users with stale types (the verifier would blame them, not the rule): the error is the
  /// rule's, at the `return` of result `i`.
  void report_type_change(const Rule& rule, size_t i, const Node& root, const TensorType& to) {
    diags_.error(DiagLocation::in_file(result_loc(rule, i)),
                 "rule '" + rule.name + "' changes the type of '" + root.name() + "' from " +
                     type_to_string(*root.type()) + " to " + type_to_string(to) +
                     " (a replacement must keep the type of the value it replaces)");
  }

  /// Names what the match created, now that the nodes it replaced are gone. An op that
  /// replaces a root takes over the root's name, so graph outputs and readers of the printed
  /// graph keep theirs; a folded constant takes the name it was made for ("bn1.weight") unless
  /// a live node still reads a constant by that name.
  void name_created(const Match& m, const std::vector<Node*>& replacements) {
    const Rule& rule = rules_.rules[m.rule];
    // Last root first: a value returned for two roots is named after the last, as apply()
    // named its folded operands.
    for (size_t i = rule.roots.size(); i-- > 0;) {
      Node* root = m.nodes[rule.roots[i]];
      Node* r = replacements[i];
      // rename() makes the name unique: were the root's name taken again, r would get a suffix.
      if (root->is_dead() && r->name().empty() && r->is(NodeKind::kCallFunction)) {
        graph_.rename(r, root->name());
      }
    }
    for (const UnnamedCall& c : unnamed_calls_) {
      if (c.node->name().empty()) graph_.name_fresh(c.node, c.hint, *c.name_memo);
    }
    unnamed_calls_.clear();
    for (auto& [node, target, folded] : unnamed_constants_) {
      if (node->is_dead()) continue;
      ConstantStore& store = graph_.constants();
      // Usually `target` is a constant of the match itself (the batch norm's weight
      // "bn1.weight" for the fused conv "bn1"), whose readers were just erased: the folded
      // value replaces it. While a live node still reads it, the value gets a name of its own.
      // A root named "__metadata__" must not name its folded value so (kReservedConstantName).
      if (target == kReservedConstantName) target = store.unique_name(target);
      ConstantRef ref = store.store_unless_read(target, std::move(folded->value));
      if (ref.stamp == 0) {
        target = store.unique_name(target);
        ref = store.store_unless_read(target, std::move(folded->value));
      }
      graph_.set_constant(node, target, ref);
      // The node's name is the constant's with '_' for '.', made in `target`'s own buffer.
      std::replace(target.begin(), target.end(), '.', '_');
      graph_.rename(node, target);
    }
    unnamed_constants_.clear();
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
      case ReplValue::Kind::kLiteral:
      case ReplValue::Kind::kSymbol:
      case ReplValue::Kind::kDimList:
      case ReplValue::Kind::kOpName: return Input::none();  // attributes only (sema)
      case ReplValue::Kind::kCoalesce: {
        Input first = resolve(m, v.items[0], results);
        return first.is_none() ? resolve(m, v.items[1], results) : first;
      }
    }
    return Input::none();
  }

  /// A replacement attribute's value: a literal, a `$` variable's, dims bound by `where`, or the
  /// name of a matched op.
  static AttrValue attr_value(const Match& m, const ReplValue& v) {
    switch (v.kind) {
      case ReplValue::Kind::kLiteral: return v.literal;
      case ReplValue::Kind::kSymbol: return AttrValue{static_cast<int64_t>(m.symbols[v.index])};
      case ReplValue::Kind::kDimList: {
        std::vector<int64_t> dims;
        for (const ReplValue& item : v.items) {
          dims.push_back(item.kind == ReplValue::Kind::kSymbol
                             ? static_cast<int64_t>(m.symbols[item.index])
                             : static_cast<int64_t>(item.scalar.value));
        }
        return AttrValue{std::move(dims)};
      }
      case ReplValue::Kind::kAttrVar: return m.attr_vars[v.index];
      case ReplValue::Kind::kOpName: return AttrValue{m.nodes[v.index]->target()};
      default: GRAFT_UNREACHABLE();  // lowering gives attributes no other kind
    }
  }

  /// True if replacement op `op`'s attributes depend on the match only through `$` variables
  /// and matched ops' names: literals, defaults, variables and names, no dims bound by `where`.
  static bool attrs_from_vars(const ReplOp& op) {
    return std::all_of(op.attrs.begin(), op.attrs.end(), [](const ReplValue& v) {
      return v.kind == ReplValue::Kind::kNone || v.kind == ReplValue::Kind::kLiteral ||
             v.kind == ReplValue::Kind::kAttrVar || v.kind == ReplValue::Kind::kOpName;
    });
  }

  /// Replacement op `op`'s attributes at match `m`, as the graph's list (AttrTable): its own
  /// values, or the schema's defaults where it sets none. nullptr after reporting an error.
  /// A rule applied all over a model mostly copies the same attributes (conv-bn folding keeps
  /// the conv's stride and padding), so the last list is reused while the `$` variables it
  /// was made from hold identical values: coercion is a function of them.
  template <typename ErrorFn>
  const AttrList* attrs_of(const Match& m, const ReplOp& op, OpMemo& memo, ErrorFn& error) {
    if (memo.attrs != nullptr && same_attr_vars(m, op, memo.attrs_from)) return memo.attrs;
    // Built in scratch kept across ops and matches: interning copies it only when the graph
    // has no identical list yet.
    AttrList& attrs = op_attrs_;
    attrs.resize(op.schema->attrs.size());
    for (size_t a = 0; a < attrs.size(); ++a) {
      const AttrSpec& spec = op.schema->attrs[a];
      if (a >= op.attrs.size() || op.attrs[a].kind == ReplValue::Kind::kNone) {
        attrs[a] = spec.default_value;
        continue;
      }
      std::string err;
      std::optional<AttrValue> coerced = coerce_attr(spec, attr_value(m, op.attrs[a]), &err);
      if (!coerced) {
        error(op.schema->name + "'s " + spec.name + ": " + err);
        return nullptr;
      }
      attrs[a] = std::move(*coerced);
    }
    const AttrList* interned = graph_.intern_attrs(attrs);
    if (attrs_from_vars(op)) {
      memo.attrs = interned;
      memo.attrs_from.clear();
      for (const ReplValue& v : op.attrs) {
        if (v.kind == ReplValue::Kind::kAttrVar || v.kind == ReplValue::Kind::kOpName) {
          memo.attrs_from.push_back(attr_value(m, v));
        }
      }
    }
    return interned;
  }

  /// True if the `$` variables and matched op names op `op`'s attributes read have, in `m`, the
  /// values in `from` (bit for bit: attrs_identical).
  static bool same_attr_vars(const Match& m, const ReplOp& op, const AttrList& from) {
    size_t k = 0;
    for (const ReplValue& v : op.attrs) {
      if (v.kind == ReplValue::Kind::kOpName) {
        const auto* name = k < from.size() ? std::get_if<std::string>(&from[k++]) : nullptr;
        if (name == nullptr || *name != m.nodes[v.index]->target()) return false;
        continue;
      }
      if (v.kind != ReplValue::Kind::kAttrVar) continue;
      if (k == from.size() || !attrs_identical_one(m.attr_vars[v.index], from[k++])) return false;
    }
    return k == from.size();
  }

  /// Creates one replacement op, or folds it into a constant when every operand is constant
  /// and folding is on. `final_name` is the name the op will have when it replaces a root ("" if
  /// it does not). nullopt after reporting an error.
  std::optional<Input> build_op(const Match& m, const ReplOp& op, const std::string& final_name,
                                Node* first_root, const std::vector<Input>& results,
                                std::vector<Node*>* created) {
    const Rule& rule = rules_.rules[m.rule];
    auto error = [&](const std::string& message) -> std::optional<Input> {
      diags_.error(DiagLocation::in_file(op.loc.empty() ? rule.loc : op.loc),
                   "rule '" + rule.name + "' applied at '" + m.anchor(rule)->name() + "': " +
                       message);
      return std::nullopt;
    };
    // Scratch kept across ops and matches: a fold copies the operands into its scratch node and
    // points it at the graph's copy of the attributes, so folding allocates no lists.
    std::vector<Input>& inputs = op_inputs_;
    inputs.clear();
    for (const ReplValue& v : op.operands) inputs.push_back(resolve(m, v, results));
    OpMemo& memo = op_memo(m.rule, op);
    const AttrList* attrs = attrs_of(m, op, memo, error);
    if (attrs == nullptr) return std::nullopt;
    // Folded values are detached get_attr nodes, so "constant" covers them too.
    const Node* non_constant = nullptr;
    for (const Input& in : inputs) {
      if (in.is_node() && !in.node->is(NodeKind::kGetAttr)) non_constant = in.node;
    }
    if (non_constant == nullptr && options_.fold) return fold(op, memo, *attrs, error);
    if (op.must_fold) {
      if (!options_.fold) return error("fold(...) needs constant folding, which is not enabled");
      return error("fold(...) is not constant here: '" + non_constant->name() + "' is not a constant");
    }
    // Place it right after the latest graph value it reads, or before the match when it reads
    // none. Folded operands are substituted once the op exists, so they can be named after it.
    Node* latest = nullptr;
    std::vector<std::pair<size_t, Folded*>> pending;
    for (size_t k = 0; k < inputs.size(); ++k) {
      Input& in = inputs[k];
      if (!in.is_node()) continue;
      if (Folded* f = folded_of(in.node)) {
        if (f->materialized == nullptr) {
          pending.push_back({k, f});
          in = Input::none();
          continue;
        }
        in = Input::of(f->materialized);
      }
      if (latest == nullptr || Graph::is_before(latest, in.node)) latest = in.node;
    }
    // Where the replaced value was (the graph keeps its schedule), unless an operand comes later
    // (a multi-output pattern's second result can read values computed after the first root):
    // then right after that operand, skipping the nodes this match just created so that the
    // replacement keeps its written order.
    Node* position = first_root;
    if (latest != nullptr && !Graph::is_before(latest, first_root)) {
      position = latest->next();
      while (position != nullptr && std::find(created->begin(), created->end(), position) != created->end()) {
        position = position->next();
      }
    }
    graph_.set_insert_point(position);
    std::string_view hint = op.name.empty() ? op.schema->name : op.name;
    // The node copies the operands (into itself, mostly) and points at the graph's copy of the
    // attribute list (made now if the graph has none yet). One that will replace a root is
    // named when the root is gone.
    Node* node = graph_.add_interned_call(*op.schema, inputs, attrs);
    if (final_name.empty()) {
      graph_.name_fresh(node, hint, memo.name);
    } else {
      unnamed_calls_.push_back({node, hint, &memo.name});
    }
    graph_.set_insert_point(nullptr);
    created->push_back(node);
    const std::string& owner = final_name.empty() ? node->name() : final_name;
    for (auto [k, f] : pending) {
      const OpSchema& s = *op.schema;
      const std::string& operand = s.operands[std::min(k, s.operands.size() - 1)].name;  // variadic items share one
      graph_.replace_input(node, k, Input::of(materialize(*f, owner + "." + operand, node, created)));
    }
    std::string err;
    if (!memo.type.infer(*node, &node->meta().type, &err)) {
      return error(op.schema->name + " rejects its inputs: " + err);
    }
    return Input::of(node);
  }

  /// Evaluates a replacement op over constants without adding it to the graph: the result is a
  /// detached constant, materialised only if a graph op or a result reads it.
  /// The op's operands are in op_inputs_, its attributes `attrs`. While they have the
  /// types, literals and attributes of the op's last fold, its type and its prepared fold
  /// (ConstantFolder::prepare) are reused: no scratch node, no inference, no kernel lookup.
  template <typename ErrorFn>
  std::optional<Input> fold(const ReplOp& op, OpMemo& memo, const AttrList& attrs, ErrorFn& error) {
    std::vector<const ConstantTensor*>& operands = fold_operands_;
    operands.clear();
    for (const Input& in : op_inputs_) {
      const ConstantTensor* t = nullptr;
      if (in.is_node()) {
        Folded* f = folded_of(in.node);
        t = f != nullptr ? &f->value : graph_.constant(*in.node);
      }
      operands.push_back(t);
    }
    ConstantTensor& value = fold_value_;
    bool done = memo.prepared != nullptr && memo.prepared_for == memo.type.generation() &&
                memo.type.same_as_last(*op.schema, op_inputs_, attrs) &&
                memo.prepared->run(operands, &value);
    const TensorType* type = memo.type.result();
    if (!done) {
      Graph::reset_detached_call(fold_call_, *op.schema, op_inputs_, &attrs);
      Node* call = fold_call_.get();
      std::string err;
      if (!memo.type.infer(*call, &call->meta().type, &err)) {
        return error(op.schema->name + " rejects its inputs: " + err);
      }
      if (memo.prepared_for != memo.type.generation()) {
        memo.prepared = options_.fold.prepare ? options_.fold.prepare(*call) : nullptr;
        memo.prepared_for = memo.type.generation();
      }
      if (memo.prepared == nullptr || !memo.prepared->run(operands, &value)) {
        std::optional<ConstantTensor> folded = options_.fold.fold(*call, operands, &err);
        if (!folded) return error("cannot fold " + op.schema->name + ": " + err);
        value = std::move(*folded);
      }
      type = call->type();
    }
    // Entries of earlier matches are reused: their nodes keep their storage.
    if (folded_count_ == folded_.size()) folded_.emplace_back();
    Folded& f = folded_[folded_count_++];
    if (f.node == nullptr) {
      f.node = Graph::make_detached_constant(type);
      folded_nodes_.push_back(f.node.get());
    } else {
      Graph::reset_detached_constant(*f.node, type);
    }
    std::swap(f.value, value);
    f.materialized = nullptr;
    return Input::of(f.node.get());
  }

  /// Adds a get_attr node for folded value `f` to the graph, before `before`. The value goes
  /// into the constants, named `target` (or made unique), once the match is applied
  /// (name_created): the name is usually taken until then by a constant the match erases.
  Node* materialize(Folded& f, std::string target, Node* before, std::vector<Node*>* created) {
    Node* saved = graph_.insert_point();
    graph_.set_insert_point(before);
    Node* node = graph_.add_unnamed_get_attr(f.node->type());
    graph_.set_insert_point(saved);
    created->push_back(node);
    f.materialized = node;
    unnamed_constants_.push_back({node, std::move(target), &f});
    return node;
  }

  /// The live node that now holds the value of `n`, which a rewrite replaced; nullptr when
  /// `n` was erased without a replacement.
  Node* replacement_of(const Node* n) const {
    for (int hops = 0; n != nullptr && n->is_dead(); ++hops) {
      if (n->id() >= replaced_by_.size() || hops > 64) return nullptr;
      n = replaced_by_[n->id()];
    }
    return const_cast<Node*>(n);
  }

  /// "fuse_conv_bn (fuse.rules:12)", made once per rule and shared by the nodes it creates.
  const SharedString& provenance_of(uint32_t rule_index) {
    if (provenance_.empty()) provenance_.resize(rules_.rules.size());
    SharedString& p = provenance_[rule_index];
    if (p.empty()) {
      const Rule& rule = rules_.rules[rule_index];
      p = SharedString(rule.name + " (" + rule.loc + ")");
    }
    return p;
  }

  /// What the driver remembers about replacement op `op` of rule `rule` between matches.
  OpMemo& op_memo(uint32_t rule, const ReplOp& op) {
    if (op_memos_.empty()) op_memos_.resize(rules_.rules.size());
    const std::vector<ReplOp>& ops = rules_.rules[rule].replacement;
    std::vector<OpMemo>& memos = op_memos_[rule];
    if (memos.empty()) memos.resize(ops.size());
    return memos[static_cast<size_t>(&op - ops.data())];
  }

  Folded* folded_of(const Node* n) {
    if (!n->is(NodeKind::kGetAttr)) return nullptr;
    for (size_t i = 0; i < folded_count_; ++i) {
      if (folded_nodes_[i] == n) return &folded_[i];
    }
    return nullptr;
  }

  void erase_dead(const Match& m, std::vector<Node*>* touched) {
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
  }

  Graph& graph_;
  const CompiledRules& compiled_;
  const RuleSet& rules_;
  const RewriteOptions& options_;
  DiagnosticEngine& diags_;
  Matcher matcher_;
  std::set<std::pair<uint32_t, std::string>> gave_up_;  // (rule, node) warned about
  RewriteResult result_;
  std::deque<Folded> folded_;  // a deque: Folded* stay valid while it grows
  std::vector<Input> apply_results_;  // apply's scratch
  std::vector<Node*> apply_created_;
  std::vector<const std::string*> apply_final_names_;
  std::vector<Node*> apply_replacements_;
  std::vector<Node*> erase_work_;  // erase_dead's scratch
  std::vector<Node*> erase_inputs_;
  std::vector<Input> op_inputs_;     // build_op's scratch
  AttrList op_attrs_;                // attrs_of's scratch
  size_t folded_count_ = 0;    // the current match's entries; later ones are kept for reuse
  std::vector<const Node*> folded_nodes_;  // folded_[i].node, scanned by folded_of
  DetachedCall fold_call_;                 // the detached op being folded, reused
  std::vector<const ConstantTensor*> fold_operands_;  // its operands' values, reused
  ConstantTensor fold_value_;             // the folded value, on its way to its Folded entry
  std::vector<SharedString> provenance_;  // by rule, see provenance_of
  std::vector<std::vector<OpMemo>> op_memos_;  // by rule and replacement op, see op_memo
  // What the current match created unnamed (name_created): root replacements with their op's
  // name hint, and get_attrs of folded values with the constant name each was made for.
  std::vector<UnnamedCall> unnamed_calls_;
  struct UnnamedConstant {
    Node* node;
    std::string target;
    Folded* folded;
  };
  std::vector<UnnamedConstant> unnamed_constants_;
  int phase_index_ = -1;
  std::vector<Node*> first_anchors_;  // from label_all, for the first phase
  std::vector<Match> first_matches_;  // found while labelling, for the first phase
  std::vector<char> joins_users_;     // by rule, see joins_users (set when there are phases)
  std::vector<Node*> replaced_by_;    // by node id: what a replaced root's uses now read
  // Nodes are never freed during a run (erased ones wait for Graph::compact()), so the ids
  // handed out since the start count every node the run created: the memory it holds.
  size_t first_id_bound_;
  size_t created_limit_;

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
