// The attribute value a literal expression of the .rules language denotes: sema checks it,
// lowering stores it, the rule-verification synthesiser instantiates it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "dsl/ast.h"
#include "engine/ir/attr.h"

namespace graft::dsl {

/// The AttrValue of a literal (number, string, bool, none, list of numbers), or nullopt for
/// anything else (a name, a call, a tolerance `v ~ t`, a list with a non-number).
std::optional<AttrValue> literal_value(const ast::Expr* e);

/// `text` as a string literal of the language (quoted, `"` and `\` escaped): for generated
/// rule text such as `import "path"`.
std::string string_literal(std::string_view text);

}  // namespace graft::dsl
