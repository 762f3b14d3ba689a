// Semantic analysis of parsed .rules files against the op registry, before anything runs:
// names and scopes, ops and op classes with "did you mean", arity and argument binding,
// attribute types, `$` variables, `where` predicates, phases, and test graphs with shape
// inference. It reports every error of the set (up to the engine's limit), not just the first.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "dsl/ast.h"
#include "dsl/rule_file_set.h"
#include "engine/support/diagnostics.h"
#include "engine/support/source_manager.h"

namespace graft::dsl {

/// Checks `files` (each after the files it imports) as one rule set and annotates their AST.
/// Returns the checked set, which takes ownership of `context`, or nullopt after reporting at
/// least one error to `diags`. Warnings alone do not fail.
[[nodiscard]] std::optional<RuleFileSet> check_rule_files(std::unique_ptr<ast::Context> context,
                                                          const std::vector<ast::RuleFile*>& files,
                                                          const SourceManager& sources,
                                                          DiagnosticEngine& diags);

}  // namespace graft::dsl
