#include "dsl/literal.h"

#include <string>
#include <string_view>
#include <vector>

namespace graft::dsl {

std::optional<AttrValue> literal_value(const ast::Expr* e) {
  switch (e->kind) {
    case ast::NodeKind::kNumber: {
      const auto* n = static_cast<const ast::NumberExpr*>(e);
      return n->is_int ? AttrValue{n->int_value} : AttrValue{n->float_value};
    }
    case ast::NodeKind::kString:
      return AttrValue{std::string(static_cast<const ast::StringExpr*>(e)->value)};
    case ast::NodeKind::kBool:
      return AttrValue{static_cast<const ast::BoolExpr*>(e)->value};
    case ast::NodeKind::kNone:
      return AttrValue{};
    case ast::NodeKind::kList: {
      std::vector<int64_t> ints;
      std::vector<double> floats;
      bool is_float = false;
      for (const ast::Expr* item : static_cast<const ast::ListExpr*>(e)->items) {
        const auto* n = ast::dyn_cast<ast::NumberExpr>(item);
        if (n == nullptr) return std::nullopt;
        is_float = is_float || !n->is_int;
        ints.push_back(n->int_value);
        floats.push_back(n->float_value);
      }
      return is_float ? AttrValue{floats} : AttrValue{ints};
    }
    default:
      return std::nullopt;
  }
}

std::string string_literal(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace graft::dsl
