// Applies one match the driver selected: builds its replacement (ReplacementBuilder), checks
// that each result keeps the type of the value it replaces and is defined before that value's
// users, redirects those users, erases what became dead and names what was created. A match
// that cannot be placed is declined and leaves the graph as it was.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/match/matcher.h"
#include "engine/match/pattern.h"
#include "engine/rewrite/replacement_builder.h"
#include "engine/rewrite/rewriter.h"
#include "engine/support/diagnostics.h"

namespace graft {

enum class ApplyOutcome {
  kApplied,
  kDeclined,   // a result would be defined after a user of the value it replaces
  kRuleError,  // the replacement is wrong for this match (reported)
};

class MatchApplier {
 public:
  MatchApplier(Graph& graph, const RuleSet& rules, const ConstantFolder& fold,
               DiagnosticEngine& diags)
      : graph_(graph), rules_(rules), diags_(diags), builder_(graph, rules, fold, diags) {}

  /// Applies `m` (checked by why_declined). Appends the nodes whose labels the rewrite changed
  /// to `touched` and the live nodes it created to `created`.
  ApplyOutcome apply(const Match& m, std::vector<Node*>* touched, std::vector<const Node*>* created);

  /// The live node that now holds the value of `n`, which a rewrite replaced; nullptr when
  /// `n` was erased without a replacement.
  Node* replacement_of(Node* n) const;

 private:
  bool build(const Match& m, Node* first_root);
  ApplyOutcome place_results(const Match& m, Node* first_root);
  void rollback();
  void report_type_change(const Rule& rule, size_t i, const Node& root, const TensorType& to);
  void name_roots(const Match& m);
  void erase_dead(const Match& m, std::vector<Node*>* touched);
  const SharedString& provenance_of(uint32_t rule_index);

  Graph& graph_;
  const RuleSet& rules_;
  DiagnosticEngine& diags_;
  ReplacementBuilder builder_;
  std::vector<Node*> replaced_by_;        // by node id: what a replaced root's uses now read
  std::vector<SharedString> provenance_;  // by rule, see provenance_of
  // Scratch kept across matches: a rewrite should not allocate for its bookkeeping.
  std::vector<Input> results_;                   // per replacement op
  std::vector<Node*> created_;                   // graph nodes the current match added
  std::vector<const std::string*> final_names_;  // per replacement op: the root name it takes
  std::vector<Node*> replacements_;              // per root
  std::vector<Node*> erase_work_;                // erase_dead's
  std::vector<Node*> erase_inputs_;
};

}  // namespace graft
