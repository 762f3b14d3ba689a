// Prints an AST back as .rules text in the canonical layout (two-space indent, one statement
// per line, minimal parentheses, numbers as written). Parsing the output gives the same AST,
// which the parser tests check for every construct; `rewrite print --rules` can use it too.
#pragma once

#include <string>

#include "dsl/ast.h"

namespace graft::dsl {

/// The whole file, declarations separated by blank lines, ending with a newline.
std::string print_file(const ast::RuleFile& file);
/// One declaration (with its `///` doc comment), ending with a newline.
std::string print_decl(const ast::Decl& decl);
/// One expression on a single line.
std::string print_expr(const ast::Expr& expr);
/// One condition on a single line: `not uses(y) == 1`.
std::string print_condition(const ast::Condition& cond);

}  // namespace graft::dsl
