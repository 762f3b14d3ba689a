// The compiled matcher: every rule of a RuleSet in one bottom-up tree automaton, then a small
// residual search per candidate (docs/matcher.md explains the design).
//
// Tier 1 (structure). Every pattern op of every rule is hash-consed into a *class*: an op set
// with the classes its operands must have and the literal attribute checks it makes, so
// `conv2d(x, w)` shared by conv-bn, conv-relu and conv-add is one class. Literal attribute
// checks (`groups=1`, `stride in {…}`, `eps=1e-5 ~ 1e-7`) become *predicates* of their op,
// numbered per op (up to 64); a node's label is its op plus the bit set of predicates its
// attributes pass, and an item requires a subset of them — so rules that differ only in an
// attribute never reach tier 2 at a node whose attributes rule them out. Labelling a graph node computes its
// state — the set of classes matching there — from its op and its inputs' states through a
// transition table that is filled lazily and cached (RE2's lazy DFA): after warm-up, labelling
// costs one hash lookup per node, whatever the number of rules. The cache is flushed when it
// outgrows its budget (set_cache_budget), as RE2 flushes its DFA's. Each state also caches the
// rules anchored at it, so a node whose state anchors no rule costs nothing more.
//
// Tier 2 (residual). At a node whose state anchors a rule, a backtracking binder assigns the
// rule's pattern nodes to graph nodes (commutative operands in either order, shared names,
// multi-output joins through the users of bound values) and checks attributes, scalar
// literals and `where` conditions. A failure backjumps over the choices it does not depend
// on, and a candidate is given up after a budget of steps (Matcher::gave_up).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/match/bind_plan.h"
#include "engine/match/pattern.h"
#include "engine/support/sequence_map.h"

namespace graft {

/// One way a rule matches: a graph node per pattern node, a value per variable, a value per
/// attribute variable.
struct Match {
  uint32_t rule = 0;
  std::vector<Node*> nodes;         // per Rule::nodes
  std::vector<Input> vars;          // per Rule::var_names (kNone for an absent `b?`)
  std::vector<AttrValue> attr_vars; // per Rule::attr_var_names
  std::vector<Dim> symbols;         // per dim symbol of the rule (unknown_dim() if unbound)
  /// The graph node matched by the rule's first root: where the match is anchored.
  Node* anchor(const Rule& of) const { return nodes[of.roots[0]]; }
};

/// The automaton tables of a RuleSet: immutable, graph-independent and reusable.
class CompiledRules {
 public:
  explicit CompiledRules(const RuleSet& rules);
  const RuleSet& rules() const { return *rules_; }
  size_t class_count() const { return classes_.size(); }
  /// The class of pattern node `node` of rule `rule`.
  uint32_t class_of(uint32_t rule, uint32_t node) const { return node_class_[rule][node]; }
  /// The height of the tallest pattern (how far a change can reach a match's anchor).
  int max_height() const { return max_height_; }
  /// The first rule whose pattern binds exactly like `rule`'s — the same pattern up to names,
  /// with one way to bind it (no commutative operands, no alternatives of one op, no
  /// multi-output join) — so that the two differ only in their `where` clauses; `rule` itself
  /// when there is none. Rule libraries hold such variants (one structure, several shape or
  /// dtype conditions): at an anchor the pattern is bound once and only the conditions run
  /// per rule (Matcher::AnchorMatches).
  uint32_t binding_leader(uint32_t rule) const { return binding_leader_[rule]; }
  /// Whether some other rule shares `rule`'s binding leader.
  bool shares_binding(uint32_t rule) const { return shares_binding_[rule] != 0; }
  /// What the binder works out about `rule` once (engine/match/bind_plan.h).
  const BindPlan& bind_plan(uint32_t rule) const { return bind_plans_[rule]; }
  /// The tables as stable, readable text: predicates per op, classes with their items, the
  /// rules anchored per class, each rule's classes and bind plan, the binding groups
  /// (engine/match/compiled_rules_dump.cpp; docs/matcher.md#reading-the-dumps).
  std::string dump() const;

  // ** internals shared with Matcher **
  static constexpr int32_t kAnyChild = -1;
  struct Item {  // one alternative of a class: an op, its predicates and its operands' classes
    OpId op = 0;
    uint64_t required = 0;          // predicate bits (of `op`) the node must pass
    std::vector<int32_t> children;  // class per operand position or kAnyChild
    bool commutative = false;
    bool variadic_any = false;      // only the first `children.size()` inputs are checked
    uint32_t klass = 0;
  };
  const std::vector<const Item*>& items_for_op(OpId op) const;
  const std::vector<uint32_t>& rules_anchored_at(uint32_t klass) const { return anchored_[klass]; }
  /// The predicates of `node`'s op that its attributes pass, as a bit set.
  uint64_t predicate_mask(const Node& node) const;
  /// Whether a node of `op` with predicate bits `mask` may have a commutative item matched
  /// with its operands swapped (OpSchema::commutes: an add only with alpha=1, a predicate of
  /// its own).
  bool commutes(OpId op, uint64_t mask) const {
    int bit = op < commute_bit_.size() ? commute_bit_[op] : -1;
    return bit < 0 || ((mask >> bit) & 1) != 0;
  }
  size_t predicate_count() const;
  size_t predicate_count(OpId op) const;  // of one op

 private:
  static constexpr size_t kMaxPredicatesPerOp = 64;  // the rest are left to tier 2
  uint32_t intern_node(uint32_t rule, uint32_t node);
  uint64_t intern_predicates(const PatAlt& alt);
  int intern_predicate(OpId op, const AttrCheck& check);  // its bit, or -1 past the limit
  void intern_commute_predicates();  // first, so that each gets a bit
  void group_identical_bindings();

  const RuleSet* rules_;
  std::vector<std::vector<Item>> classes_;         // class id -> its items
  std::unordered_map<std::string, uint32_t> class_ids_;
  std::vector<std::vector<uint32_t>> node_class_;  // rule -> pattern node -> class
  std::vector<std::vector<const Item*>> by_op_;    // op id -> items with that op
  std::vector<std::vector<uint32_t>> anchored_;    // class -> rules whose first root it is
  std::vector<std::vector<AttrCheck>> predicates_;  // op id -> its predicates, by bit
  std::unordered_map<std::string, uint32_t> predicate_bits_;  // op + check key -> bit
  // op id -> the predicate bit saying its operands commute (OpSchema::commutes_if_attr), for
  // ops that need one and have a commutative pattern node; -1 otherwise.
  std::vector<int> commute_bit_;
  int max_height_ = 1;
  std::vector<uint32_t> binding_leader_;  // rule -> rule (see binding_leader)
  std::vector<char> shares_binding_;      // rule -> a group of two or more
  std::vector<BindPlan> bind_plans_;      // rule -> its plan
};

/// Why a candidate can run out of binding steps, and what narrows the search.
inline constexpr const char* kGaveUpHint =
    "commutative operands leave too many ways to bind the pattern; 'ordered' calls "
    "narrow them";

/// How a search combines the parts of a pattern that share no input (BindPlan::parts > 1,
/// `return relu(a), sigmoid(b)`): the first part is bound at the anchor, each later one at the
/// nodes of its class in graph order (docs/matcher.md#patterns-of-several-parts). The driver
/// keeps one per rule and pass; match_at without one searches with a fresh one.
struct PartSearch {
  /// The most combinations one search may try (a later part tried at one node is one), by
  /// default: enough for every pairing in graphs of a thousand nodes per part, and a bound on
  /// a pass's time whatever the graph (RewriteOptions::max_combinations).
  static constexpr uint64_t kDefaultCombinations = 1'000'000;
  /// By node id: nodes no part may bind (earlier matches of the rule in this pass took them);
  /// ids past the end are free. Null: none.
  const std::vector<char>* taken = nullptr;
  /// Why the driver would decline a combination, "" when it would apply it (why_declined):
  /// a declined combination is passed over for the next one, as torch.fx drops matches that
  /// are not self-contained or would form a cycle before choosing among the rest.
  std::function<std::string(const Match&)> declined;
  /// Combinations left; a search that runs out stops (Matcher::ran_out_of_combinations).
  uint64_t combinations_left = kDefaultCombinations;
  /// Per class of a part's first node: how many of the class's nodes at the front are taken,
  /// so that a rule's later anchors do not walk past them again.
  std::unordered_map<uint32_t, size_t> first_free;
};

/// Why a rule did or did not match at a node (`--explain`).
struct Explanation {
  bool matched = false;
  std::string reason;  // the first failing check, with its source location
};

/// Labels one graph and finds matches; keeps per-node states so that only the region a
/// rewrite touched needs relabelling.
class Matcher {
 public:
  Matcher(const CompiledRules& compiled, const Graph& graph);

  /// Labels every node (in graph order); returns the nodes whose state anchors a rule, in order.
  /// `on_anchor`, when given, is called with each of those right after it is labelled: every
  /// node before it has its state then, none after it.
  std::vector<Node*> label_all(const std::function<void(Node*)>& on_anchor = {});
  /// Relabels `nodes` (any order; dead ones are skipped) and every user up to max_height above
  /// them, each once; returns them (candidate anchors), each once, `nodes` first and then their
  /// users level by level — not in graph order.
  std::vector<Node*> relabel(const std::vector<Node*>& nodes);

  /// Rules (of `enabled`, all when empty) whose anchor class is in `node`'s state.
  const std::vector<uint32_t>& anchored_rules(const Node* node);
  /// Tries rule `rule` anchored at `node`; the first match found, or nullopt. A pattern of
  /// several parts combines them as `parts` says (a fresh PartSearch when null).
  std::optional<Match> match_at(uint32_t rule, Node* node, Explanation* why = nullptr,
                                PartSearch* parts = nullptr);

  /// The most steps (pattern node bindings tried) one candidate may take; 0 means
  /// kDefaultBindingBudget. Binding is polynomial in the pattern's size for the usual rules
  /// (docs/matcher.md); the budget bounds the rest.
  void set_binding_budget(uint64_t steps) {
    binding_budget_ = steps != 0 ? steps : kDefaultBindingBudget;
  }
  uint64_t binding_budget() const { return binding_budget_; }
  static constexpr uint64_t kDefaultBindingBudget = 100'000;
  /// Whether the last match_at (or AnchorMatches::match) gave up: it ran out of binding steps
  /// before finding a match or ruling one out. Its nullopt then means "not known".
  bool gave_up() const { return gave_up_; }
  /// Whether the last match_at stopped because its PartSearch ran out of combinations; its
  /// nullopt then means "not known" too.
  bool ran_out_of_combinations() const { return out_of_combinations_; }

  /// Tries several rules at one anchor, as match_at does, but binds the pattern of a group of
  /// rules that differ only in their `where` clauses (CompiledRules::binding_leader) once.
  /// The graph must not change while it is in use.
  class AnchorMatches {
   public:
    AnchorMatches(Matcher& matcher, Node* anchor) : matcher_(matcher), anchor_(anchor) {}
    std::optional<Match> match(uint32_t rule);

   private:
    struct Bound {
      uint32_t leader;
      std::optional<Match> binding;  // the pattern bound, conditions not checked; or no binding
      bool gave_up;                  // no binding because the budget ran out
    };
    Matcher& matcher_;
    Node* anchor_;
    std::vector<Bound> bound_;  // a handful at most: one per group met at this anchor
  };

  /// The most bytes the state cache may hold — the transition table and the states no node
  /// holds — before it is flushed; 0 means kDefaultCacheBudget. A flush keeps only the states
  /// of the graph's nodes, so results never change; the next flush comes when the cache has
  /// grown past the budget and past twice what the flush kept.
  void set_cache_budget(size_t bytes) {
    cache_budget_ = bytes != 0 ? bytes : kDefaultCacheBudget;
    flush_at_ = cache_budget_;
  }
  size_t cache_budget() const { return cache_budget_; }
  static constexpr size_t kDefaultCacheBudget = size_t{32} << 20;
  /// About how many bytes the states and transitions take now.
  size_t cache_bytes() const { return cache_bytes_; }
  uint64_t cache_flushes() const { return flushes_; }

  uint64_t transitions_computed() const { return misses_; }
  /// How many times a relabel() computed a node's state (each node of a region once).
  uint64_t states_relabelled() const { return relabelled_; }
  size_t state_count() const { return states_.size(); }

 private:
  uint32_t compute_state(const Node* node);
  /// The transition key of a node of `op` with predicate bits `mask`, into key_.
  void make_key(const Node* node, OpId op, uint64_t mask);
  /// Empties the transition table and drops the states no node holds, renumbering the rest.
  void flush_cache();
  /// CompiledRules::predicate_mask, remembered per op for the last attribute list seen.
  uint64_t predicate_mask(const Node& node);
  /// match_at's binding step; `with_conditions` false binds the pattern only.
  std::optional<Match> bind(uint32_t rule, Node* node, bool with_conditions, Explanation* why,
                            PartSearch* parts);
  /// The live nodes whose state holds class `klass`, in graph order: where a part of a
  /// pattern that shares no input with its anchor's may start. Built once per labelling.
  const std::vector<Node*>& nodes_in_class(uint32_t klass);
  uint32_t state_of_input(const Input& in) const;
  uint32_t intern_state(std::vector<uint32_t> classes);
  bool item_matches(const CompiledRules::Item& item, uint64_t mask,
                    const std::vector<uint32_t>& input_states, bool swapped) const;
  bool state_has(uint32_t state, uint32_t klass) const;

  const CompiledRules& compiled_;
  const Graph& graph_;
  uint64_t binding_budget_ = kDefaultBindingBudget;
  bool gave_up_ = false;
  bool out_of_combinations_ = false;
  uint64_t labelling_ = 0;  // bumped by label_all and relabel: class_nodes_ is stale then
  uint64_t class_nodes_labelling_ = ~uint64_t{0};
  std::unordered_map<uint32_t, std::vector<Node*>> class_nodes_;  // see nodes_in_class
  std::vector<uint32_t> node_state_;  // by node id; 0 = empty state
  std::vector<std::vector<uint32_t>> states_;          // state id -> sorted class ids
  std::vector<std::vector<uint32_t>> state_rules_;     // state id -> anchored rules
  std::unordered_map<std::string, uint32_t> state_ids_;
  SequenceMap transitions_;  // (op, predicate bits, operand count, operand states) -> state
  uint64_t misses_ = 0;
  uint64_t relabelled_ = 0;
  size_t cache_budget_ = kDefaultCacheBudget;
  size_t flush_at_ = kDefaultCacheBudget;  // cache_bytes_ past this flushes at the next miss
  size_t cache_bytes_ = 0;
  uint64_t flushes_ = 0;
  std::vector<uint32_t> key_;  // scratch
  // By op id: the last attribute list whose predicates were evaluated, and their bits. A rule
  // library checks literal attributes as predicates (engine/match/pattern.h), a few dozen on
  // conv2d; a model repeats a handful of attribute lists, which the graph keeps one copy of each of
  // (AttrTable): the same list is the same pointer, and lists live as long as the graph.
  struct PredicateMemo {
    const AttrList* attrs = nullptr;
    uint64_t mask = 0;
  };
  std::vector<PredicateMemo> predicate_memo_;
};

}  // namespace graft
