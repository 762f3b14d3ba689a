// Lowering: the checked AST of a RuleFileSet -> the engine's rule IR (engine/match/pattern.h),
// which the matcher and the rewrite driver run. Sema has already resolved ops, bound arguments and
// names, so lowering is mostly a translation; it reports (at the construct's source range) only
// what the language accepts but the engine cannot run, such as a parameter that no pattern op
// reads.
#pragma once

#include <optional>
#include <vector>

#include "dsl/rule_file_set.h"
#include "engine/match/pattern.h"
#include "engine/support/diagnostics.h"
#include "engine/support/source_manager.h"

namespace graft::dsl {

/// Lowers every checked rule and phase of `set` to the engine IR: RuleSet::rules[i] is
/// set.rules()[i], and RuleSet::phases are set.phases() in order. Returns nullopt after reporting
/// (with the source range of the offending construct) anything the engine cannot run; every
/// rule is lowered, so one call reports every such problem of the set.
[[nodiscard]] std::optional<RuleSet> lower(const RuleFileSet& set, const SourceManager& sources,
                                           DiagnosticEngine& diags);

/// Lowers only the given phases (used for test blocks' plans) and the rules they list:
/// RuleSet::rules holds those rules in the set's order, and the phases' indices refer to it.
[[nodiscard]] std::optional<RuleSet> lower_plan(const RuleFileSet& set,
                                                const std::vector<CheckedPhase>& plan,
                                                const SourceManager& sources,
                                                DiagnosticEngine& diags);

}  // namespace graft::dsl
