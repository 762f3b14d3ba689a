// The rewrite driver: runs a RuleSet's phases over a graph with the compiled matcher, choosing
// non-overlapping matches by benefit and graph order, applying them safely (interior values
// used outside a match, cycles and misplaced results are rejected), folding constant
// replacement expressions, and re-matching only the region each rewrite touched.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/match/matcher.h"
#include "engine/match/pattern.h"
#include "engine/support/diagnostics.h"

namespace graft {

/// A constant folder's work for one op over operands of fixed types, scalar literals and
/// attributes, done once (ConstantFolder::prepare): which kernel, the result's shape, how the
/// operands broadcast. A rule folds the same few ops with the same shapes at every match (the
/// nine small ops of a conv-bn fold), and for tensors of eight elements that work was most of
/// a fold.
class PreparedFold {
 public:
  virtual ~PreparedFold() = default;
  /// Computes the op over `operands` (as ConstantFolder::fold's) into `*result`. Returns false,
  /// having done nothing, when an operand is not as prepared (its dtype, shape or alignment):
  /// the caller then folds the op through ConstantFolder::fold, which reports any error.
  /// Throws what fold() throws when the result cannot be allocated.
  virtual bool run(const std::vector<const ConstantTensor*>& operands,
                   ConstantTensor* result) const = 0;
};

/// Folds call_function nodes whose tensor operands are all constants. The runtime provides one
/// built on its reference kernels (eval/constant_folder.h).
struct ConstantFolder {
  /// Computes `node` (its type inferred and concrete) over `operands`, one entry per input:
  /// the tensor, or nullptr for a scalar or None input. nullopt with `*error` set on failure.
  std::function<std::optional<ConstantTensor>(
      const Node& node, const std::vector<const ConstantTensor*>& operands, std::string* error)>
      fold;
  /// Optional. A fold of `node`'s op for operands of its inputs' types, its scalar literals and
  /// attributes; nullptr where there is no such shortcut. The rewrite driver keeps one per
  /// replacement op and uses it while those stay the same (TypeMemo's key).
  std::function<std::unique_ptr<PreparedFold>(const Node& node)> prepare;

  explicit operator bool() const { return static_cast<bool>(fold); }
};

struct AppliedRewrite;  // below; RewriteOptions::on_applied takes one

struct RewriteOptions {
  /// Folds replacement ops whose operands are all constant. Without one, such ops stay in the
  /// graph as ops, and a rule that needs `fold(...)` is an error.
  ConstantFolder fold;
  /// Measures each rule's time (RuleStats::seconds; `--stats`). Off, the seconds stay 0: two
  /// clock reads per candidate and per rewrite are a visible share of a large graph's rewrite.
  bool time_rules = false;
  /// Runs the graph verifier after every phase (tests; `--verify-each`).
  bool verify_each_phase = false;
  /// Called after each phase with the graph as the next phase sees it (`--print-after`). Dead
  /// nodes may still be allocated then, but none is linked.
  std::function<void(const Phase& phase, const Graph& graph)> after_phase;
  /// Called before each phase with the graph the phase starts from (`--explain` explains a
  /// rule on the graph its phase sees).
  std::function<void(const Phase& phase, const Graph& graph)> before_phase;
  /// Called for each applied rewrite with the names of the graph nodes its match covered,
  /// read before they were replaced (`--explain` names the rewrite that took a node first).
  /// Unset, it costs nothing.
  std::function<void(const AppliedRewrite& rewrite,
                     const std::vector<std::string>& matched)> on_applied;
  /// The most nodes the rewrites of one run may create; 0 means
  /// default_created_nodes_limit() of the graph's size. A rule whose replacement matches its
  /// own pattern again (u(x) -> u(x) + u(x)) grows the graph every fixpoint iteration, doubling
  /// it in that case, and would exhaust memory long before the phase's iteration limit; and
  /// every created node stays allocated until Graph::compact(), even once a ping-pong erased it.
  size_t max_created_nodes = 0;
  /// The most binding steps the matcher spends on one candidate (a rule at a node); 0 means
  /// Matcher::kDefaultBindingBudget. A candidate that needs more is skipped with a warning.
  uint64_t max_binding_steps = 0;
  /// The most combinations of a pattern's parts (a pattern whose outputs share no input,
  /// `return relu(a), sigmoid(b)`) one rule may try in one pass; 0 means
  /// PartSearch::kDefaultCombinations. A rule that runs out is skipped for the rest of the pass
  /// with a warning.
  uint64_t max_combinations = 0;
  /// The most bytes the matcher's state cache may hold before it is flushed; 0 means
  /// Matcher::kDefaultCacheBudget. Results do not depend on it (docs/matcher.md).
  size_t matcher_cache_budget = 0;
};

/// The default limit on the nodes one run may create on a graph of `nodes` nodes: 16 times its
/// size, plus 4096 so that small graphs may grow too. Standard rewrites create at most about
/// one node per node they replace. The limit also bounds the time a runaway rule set takes: its
/// copies pile up as users of one value, and a multi-output match attempt sorts that value's
/// users (engine/match/match_binder.cpp), so an iteration costs the square of that fan-out.
inline size_t default_created_nodes_limit(size_t nodes) { return 16 * nodes + 4096; }

struct RuleStats {
  uint64_t candidates = 0;  // anchors whose state had the rule
  uint64_t matches = 0;     // full matches (structure, attributes, conditions)
  uint64_t applied = 0;     // matches rewritten
  /// Matching and rewriting time spent on the rule, when RewriteOptions::time_rules (else 0).
  /// Rules that share a binding (they differ only in `where`, CompiledRules::binding_leader)
  /// are bound once per anchor, and that binding is charged to the first of them tried there.
  double seconds = 0;
};

struct AppliedRewrite {
  std::string rule;
  std::string anchor;  // the node the match was anchored at (its name before the rewrite)
  int phase = 0;       // index into RuleSet::phases
  int phase_iteration = 0;
};

struct RewriteResult {
  bool ok = true;
  std::vector<RuleStats> stats;                   // per RuleSet rule
  std::vector<AppliedRewrite> applied;            // in order
  std::vector<const Node*> created;               // live nodes created by rewrites, in order
  uint64_t nodes_labelled = 0;                    // matcher work, for benchmarks
};

/// Runs every phase of `rules` on `graph`. Returns ok=false after reporting to `diags` when
/// a replacement is ill-typed, a `fold` is not constant, a fixpoint phase hits its limit (the
/// rules that kept firing are named), the rewrites create more nodes than
/// `options.max_created_nodes` (the rules that fired most are named) or the verifier fails.
/// A run stopped by a limit leaves a valid graph: it stops between two rewrites.
RewriteResult rewrite_graph(Graph& graph, const CompiledRules& rules, const RewriteOptions& options,
                            DiagnosticEngine& diags);

/// What became of `rule` at the node named `node` in a whole run (`--explain RULE@NODE`): per
/// phase that holds the rule, explain_match on the graph that phase starts from (until the
/// node is gone), and which rewrite, if any, took the node first.
struct RunExplanation {
  struct AtPhase {
    std::string phase;
    bool node_present = true;  // false: a rewrite of an earlier phase replaced the node
    Explanation why;           // when node_present
  };
  std::vector<AtPhase> phases;
  /// The first applied rewrite whose match covered the node (`rule` itself when it applied
  /// there), with the phase's name; nullopt when no rewrite touched the node.
  std::optional<AppliedRewrite> taken_by;
  std::string taken_in_phase;
};

/// Runs `rules` on a copy of `graph` with `options` (its hooks are replaced) and explains
/// `rule` at `node` as RunExplanation says. Reports unknown names to `diags`; a failing run is
/// reported too, and what was explained until then is returned.
std::optional<RunExplanation> explain_in_run(const Graph& graph, const CompiledRules& rules,
                                             RewriteOptions options, const std::string& rule,
                                             const std::string& node, DiagnosticEngine& diags);

/// One line per phase that holds the rule (what it finds on the graph that phase starts from),
/// then what became of the node: `RULE@NODE in phase 'fuse': no match: …`, `RULE@NODE: not
/// applied: conv_add_relu (phase 'fuse') took 'add' first, anchored at 'relu'`.
std::string format_run_explanation(const std::string& rule, const std::string& node,
                                   const RunExplanation& run);
/// True if the run applied `rule` at `node` itself.
inline bool applied_at(const RunExplanation& run, const std::string& rule, const std::string& node) {
  return run.taken_by && run.taken_by->rule == rule && run.taken_by->anchor == node;
}

/// Why `rule` does or does not rewrite at the node named `node` (`--explain RULE@NODE`): the
/// first failing structural, attribute or `where` check, or the driver's reason to decline a
/// match (an interior value used outside it, a cycle). Reports unknown names to `diags`.
std::optional<Explanation> explain_match(const Graph& graph, const CompiledRules& rules,
                                         const std::string& rule, const std::string& node,
                                         DiagnosticEngine& diags);

}  // namespace graft
