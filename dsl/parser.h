// The .rules parser: text -> AST. Syntax errors stop the parse at the first one (PEGTL's
// global failure) and are reported as located diagnostics; nothing is thrown to the caller.
#pragma once

#include "dsl/ast.h"
#include "engine/support/diagnostics.h"
#include "engine/support/source_manager.h"

namespace graft::dsl {

/// How deeply expressions may nest (parentheses, calls, unary minus) before the parser
/// reports an error instead of recursing further.
inline constexpr int kMaxNestingDepth = 256;

/// Parses buffer `file` of `sources` into an AST owned by `ctx`. Returns nullptr after
/// reporting the syntax error to `diags`.
[[nodiscard]] ast::RuleFile* parse_rules(FileId file, const SourceManager& sources,
                                         ast::Context& ctx, DiagnosticEngine& diags);

}  // namespace graft::dsl
