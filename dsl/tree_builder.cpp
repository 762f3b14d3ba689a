// The node builders of the parser's actions (see tree_builder.h for the stack discipline).
#include "dsl/tree_builder.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "engine/support/check.h"

namespace graft::dsl {
namespace {

using ast::Node;

/// Typed access to the children a rule produced, in source order.
class Kids {
 public:
  explicit Kids(std::vector<Node*> nodes) : nodes_(std::move(nodes)) {}

  template <typename T>
  T* first() const {
    for (Node* n : nodes_) {
      if (auto* t = ast::dyn_cast<T>(n)) return t;
    }
    return nullptr;
  }
  template <typename T>
  std::vector<T*> all() const {
    std::vector<T*> result;
    for (Node* n : nodes_) {
      if (auto* t = ast::dyn_cast<T>(n)) result.push_back(t);
    }
    return result;
  }
  std::vector<ast::Expr*> exprs() const {
    std::vector<ast::Expr*> result;
    for (Node* n : nodes_) {
      if (ast::is_expr(n->kind)) result.push_back(static_cast<ast::Expr*>(n));
    }
    return result;
  }
  const ast::Token* token(std::string_view text) const {
    for (Node* n : nodes_) {
      auto* t = ast::dyn_cast<ast::Token>(n);
      if (t != nullptr && t->text == text) return t;
    }
    return nullptr;
  }
  const std::vector<Node*>& nodes() const { return nodes_; }

 private:
  std::vector<Node*> nodes_;
};

/// Every child except tokens, in order (clauses, decls, statements).
std::vector<Node*> non_tokens(const Kids& kids) {
  std::vector<Node*> result;
  for (Node* n : kids.nodes()) {
    if (n->kind != ast::NodeKind::kToken && n->kind != ast::NodeKind::kIdent) result.push_back(n);
  }
  return result;
}

ast::BinaryOp binary_op(std::string_view text) {
  if (text == "+") return ast::BinaryOp::kAdd;
  if (text == "-") return ast::BinaryOp::kSub;
  if (text == "*") return ast::BinaryOp::kMul;
  if (text == "/") return ast::BinaryOp::kDiv;
  return ast::BinaryOp::kCoalesce;
}

ast::CmpOp cmp_op(std::string_view text) {
  if (text == "==") return ast::CmpOp::kEq;
  if (text == "!=") return ast::CmpOp::kNe;
  if (text == "<") return ast::CmpOp::kLt;
  if (text == "<=") return ast::CmpOp::kLe;
  if (text == ">") return ast::CmpOp::kGt;
  if (text == ">=") return ast::CmpOp::kGe;
  return ast::CmpOp::kIn;
}

SourceRange span(SourceRange a, SourceRange b) { return {a.file, a.begin, b.end}; }

}  // namespace

SourceRange TreeBuilder::range(const char* begin, const char* end) const {
  return {file_, static_cast<uint32_t>(begin - text_.data()),
          static_cast<uint32_t>(end - text_.data())};
}

std::optional<SourceRange> TreeBuilder::open_token(char c) const {
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
    auto* t = ast::dyn_cast<ast::Token>(*it);
    if (t != nullptr && t->text.size() == 1 && t->text[0] == c) return t->range;
  }
  return std::nullopt;
}

ast::RuleFile* TreeBuilder::result() const {
  GRAFT_CHECK(stack_.size() == 1) << "parser left " << stack_.size() << " nodes";
  return ast::dyn_cast<ast::RuleFile>(stack_.back());
}

std::vector<Node*> TreeBuilder::take() {
  GRAFT_CHECK(!marks_.empty());
  auto begin = stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back());
  std::vector<Node*> kids(begin, stack_.end());
  stack_.erase(begin, stack_.end());
  return kids;
}

void TreeBuilder::ident(SourceRange r) {
  take();
  auto* n = ctx_.make<ast::Ident>(r);
  n->text = ctx_.save(text(r));
  push(n);
}

void TreeBuilder::token(SourceRange r) {
  take();  // keywords wrapped as tokens have no interesting children
  auto* n = ctx_.make<ast::Token>(r);
  n->text = ctx_.save(text(r));
  push(n);
}

void TreeBuilder::doc_line(SourceRange r) {
  std::string_view line = text(r).substr(3);  // after "///"
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  auto* n =
      ctx_.make<ast::Token>({r.file, r.begin, r.begin + 3 + static_cast<uint32_t>(line.size())});
  n->text = ctx_.save(line);
  push(n);
}

std::optional<std::string> TreeBuilder::number(SourceRange r) {
  std::string_view s = text(r);
  auto* n = ctx_.make<ast::NumberExpr>(r);
  n->spelling = ctx_.save(s);
  n->is_int = s.find_first_of(".eEi") == std::string_view::npos;
  if (s == "inf") {
    n->float_value = std::numeric_limits<double>::infinity();
  } else if (n->is_int) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n->int_value);
    if (ec != std::errc() || end != s.data() + s.size()) {
      return "integer '" + std::string(s) + "' is too large";
    }
    n->float_value = static_cast<double>(n->int_value);
  } else {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n->float_value);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(n->float_value)) {
      return "number '" + std::string(s) + "' is out of range";
    }
  }
  push(n);
  return std::nullopt;
}

void TreeBuilder::signed_number(SourceRange r) {
  Kids kids(take());
  auto* n = kids.first<ast::NumberExpr>();
  if (text(r).front() == '-') {
    n->spelling = ctx_.save("-" + std::string(n->spelling));
    n->int_value = -n->int_value;
    n->float_value = -n->float_value;
    n->range = r;
  }
  push(n);
}

void TreeBuilder::string_literal(SourceRange r) {
  std::string_view s = text(r);
  s = s.substr(1, s.size() - 2);
  std::string value;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[++i];
      value += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      value += s[i];
    }
  }
  take();
  auto* n = ctx_.make<ast::StringExpr>(r);
  n->value = ctx_.save(value);
  push(n);
}

void TreeBuilder::bool_literal(SourceRange r, bool value) {
  take();
  auto* n = ctx_.make<ast::BoolExpr>(r);
  n->value = value;
  push(n);
}

void TreeBuilder::none_literal(SourceRange r) {
  take();
  push(ctx_.make<ast::NoneExpr>(r));
}

void TreeBuilder::wildcard(SourceRange r) {
  take();
  push(ctx_.make<ast::WildcardExpr>(r));
}

void TreeBuilder::ellipsis(SourceRange r) {
  take();
  push(ctx_.make<ast::EllipsisExpr>(r));
}

void TreeBuilder::attr_var(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::AttrVarExpr>(r);
  n->name = kids.first<ast::Ident>()->text;
  push(n);
}

void TreeBuilder::name(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::NameExpr>(r);
  n->name = kids.first<ast::Ident>()->text;
  push(n);
}

void TreeBuilder::literal_number(SourceRange r) {
  Kids kids(take());
  std::vector<ast::NumberExpr*> numbers = kids.all<ast::NumberExpr>();
  if (numbers.size() == 1) {
    push(numbers[0]);
    return;
  }
  auto* n = ctx_.make<ast::ToleranceExpr>(r);
  n->value = numbers[0];
  n->tolerance = numbers[1];
  push(n);
}

void TreeBuilder::arg(SourceRange r, bool is_in) {
  Kids kids(take());
  auto* n = ctx_.make<ast::Arg>(r);
  n->keyword = kids.first<ast::Ident>();
  n->is_in = is_in;
  std::vector<ast::Expr*> values = kids.exprs();
  n->value = values.empty() ? nullptr : values.back();
  push(n);
}

void TreeBuilder::call(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::CallExpr>(r);
  std::vector<ast::Ident*> ops = kids.all<ast::Ident>();
  n->ops = ctx_.copy(ops);
  n->args = ctx_.copy(kids.all<ast::Arg>());
  n->callee_range = span(ops.front()->range, ops.back()->range);
  push(n);
}

void TreeBuilder::ordered_call(SourceRange r) {
  Kids kids(take());
  auto* n = kids.first<ast::CallExpr>();
  n->ordered = true;
  n->range = r;
  push(n);
}

void TreeBuilder::paren(SourceRange) {
  Kids kids(take());
  push(kids.exprs().front());
}

void TreeBuilder::list(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::ListExpr>(r);
  n->items = ctx_.copy(kids.exprs());
  push(n);
}

void TreeBuilder::set(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::SetExpr>(r);
  n->items = ctx_.copy(kids.exprs());
  push(n);
}

void TreeBuilder::range_literal(SourceRange r) {
  Kids kids(take());
  std::vector<ast::NumberExpr*> bounds = kids.all<ast::NumberExpr>();
  auto* n = ctx_.make<ast::RangeExpr>(r);
  n->lo = bounds[0];
  n->hi = bounds[1];
  push(n);
}

void TreeBuilder::negate(SourceRange r) {
  Kids kids(take());
  ast::Expr* operand = kids.exprs().front();
  // `-1` is a negative literal, not neg(1): attribute values such as [-1, 1, 1, 1] stay
  // literals, and printing gives back what was written.
  ast::NumberExpr* number = ast::dyn_cast<ast::NumberExpr>(operand);
  if (auto* tol = ast::dyn_cast<ast::ToleranceExpr>(operand)) number = tol->value;
  if (number != nullptr && number->spelling.front() != '-') {
    number->spelling = ctx_.save("-" + std::string(number->spelling));
    number->int_value = -number->int_value;
    number->float_value = -number->float_value;
    number->range.begin = r.begin;
    operand->range.begin = r.begin;
    push(operand);
    return;
  }
  auto* n = ctx_.make<ast::UnaryExpr>(r);
  n->operand = operand;
  push(n);
}

void TreeBuilder::binary_left(SourceRange) {
  std::vector<Node*> kids = take();
  ast::Expr* lhs = static_cast<ast::Expr*>(kids[0]);
  for (size_t i = 1; i + 1 < kids.size(); i += 2) {
    auto* op = ast::dyn_cast<ast::Token>(kids[i]);
    auto* rhs = static_cast<ast::Expr*>(kids[i + 1]);
    auto* n = ctx_.make<ast::BinaryExpr>(span(lhs->range, rhs->range));
    n->op = binary_op(op->text);
    n->op_range = op->range;
    n->lhs = lhs;
    n->rhs = rhs;
    lhs = n;
  }
  push(lhs);
}

void TreeBuilder::binary_right(SourceRange) {
  std::vector<Node*> kids = take();
  ast::Expr* rhs = static_cast<ast::Expr*>(kids.back());
  for (size_t i = kids.size() - 1; i >= 2; i -= 2) {
    auto* op = ast::dyn_cast<ast::Token>(kids[i - 1]);
    auto* lhs = static_cast<ast::Expr*>(kids[i - 2]);
    auto* n = ctx_.make<ast::BinaryExpr>(span(lhs->range, rhs->range));
    n->op = binary_op(op->text);
    n->op_range = op->range;
    n->lhs = lhs;
    n->rhs = rhs;
    rhs = n;
  }
  push(rhs);
}

void TreeBuilder::condition(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::Condition>(r);
  std::vector<ast::Expr*> operands = kids.exprs();
  n->negated = kids.token("not") != nullptr;
  n->lhs = operands[0];
  if (operands.size() > 1) {
    n->rhs = operands[1];
    for (Node* k : kids.nodes()) {
      auto* t = ast::dyn_cast<ast::Token>(k);
      if (t != nullptr && t->text != "not") {
        n->op = cmp_op(t->text);
        n->op_range = t->range;
      }
    }
  }
  push(n);
}

void TreeBuilder::type_spec(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::TypeSpec>(r);
  std::vector<ast::Expr*> dims;
  bool first_ident = true;
  for (Node* k : kids.nodes()) {
    if (auto* id = ast::dyn_cast<ast::Ident>(k)) {
      if (first_ident) {
        n->dtype = id;
        first_ident = false;
        continue;
      }
      auto* dim = ctx_.make<ast::NameExpr>(id->range);
      dim->name = id->text;
      dims.push_back(dim);
    } else if (auto* num = ast::dyn_cast<ast::NumberExpr>(k)) {
      dims.push_back(num);
    }
  }
  n->dims = ctx_.copy(dims);
  push(n);
}

void TreeBuilder::param_def(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::ParamDefStmt>(r);
  n->type = kids.first<ast::TypeSpec>();
  if (const ast::Token* positive = kids.token("positive")) {
    n->positive = true;
    n->positive_range = positive->range;
  }
  n->buffer = kids.token("buffer") != nullptr;
  std::vector<ast::Expr*> init = kids.exprs();
  n->init = init.empty() ? nullptr : init.front();
  push(n);
}

void TreeBuilder::assign(SourceRange r) {
  Kids kids(take());
  auto* target = kids.first<ast::Ident>();
  if (auto* def = kids.first<ast::ParamDefStmt>()) {
    def->target = target;
    def->range = r;
    push(def);
    return;
  }
  auto* n = ctx_.make<ast::AssignStmt>(r);
  n->target = target;
  n->value = kids.exprs().front();
  push(n);
}

void TreeBuilder::return_stmt(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::ReturnStmt>(r);
  n->values = ctx_.copy(kids.exprs());
  push(n);
}

void TreeBuilder::block(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::Block>(r);
  std::vector<ast::Stmt*> stmts;
  for (Node* k : kids.nodes()) {
    if (auto* ret = ast::dyn_cast<ast::ReturnStmt>(k)) {
      n->ret = ret;
    } else if (k->kind == ast::NodeKind::kAssign || k->kind == ast::NodeKind::kParamDef) {
      stmts.push_back(static_cast<ast::Stmt*>(k));
    }
  }
  n->stmts = ctx_.copy(stmts);
  push(n);
}

void TreeBuilder::param(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::Param>(r);
  n->name = kids.first<ast::Ident>();
  n->optional = kids.token("?") != nullptr;
  n->type = kids.first<ast::TypeSpec>();
  push(n);
}

void TreeBuilder::pattern(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::PatternBlock>(r);
  n->params = ctx_.copy(kids.all<ast::Param>());
  n->body = kids.first<ast::Block>();
  push(n);
}

void TreeBuilder::replacement(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::ReplacementBlock>(r);
  n->body = kids.first<ast::Block>();
  push(n);
}

void TreeBuilder::where(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::WhereClause>(r);
  n->conditions = ctx_.copy(kids.all<ast::Condition>());
  push(n);
}

void TreeBuilder::benefit(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::BenefitClause>(r);
  n->value = kids.first<ast::NumberExpr>();
  push(n);
}

void TreeBuilder::rule(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::RuleDecl>(r);
  n->name = kids.first<ast::Ident>();
  n->pattern = kids.first<ast::PatternBlock>();
  n->replacement = kids.first<ast::ReplacementBlock>();
  std::vector<Node*> clauses;
  for (Node* k : kids.nodes()) {
    if (k->kind == ast::NodeKind::kWhere || k->kind == ast::NodeKind::kBenefit)
      clauses.push_back(k);
  }
  n->clauses = ctx_.copy(clauses);
  push(n);
}

void TreeBuilder::import(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::ImportDecl>(r);
  n->path = kids.first<ast::StringExpr>();
  push(n);
}

void TreeBuilder::opclass(SourceRange r) {
  Kids kids(take());
  std::vector<ast::Ident*> names = kids.all<ast::Ident>();
  auto* n = ctx_.make<ast::OpClassDecl>(r);
  n->name = names.front();
  n->ops = ctx_.copy(std::vector<ast::Ident*>(names.begin() + 1, names.end()));
  push(n);
}

void TreeBuilder::phase(SourceRange r) {
  Kids kids(take());
  std::vector<ast::Ident*> names = kids.all<ast::Ident>();
  auto* n = ctx_.make<ast::PhaseDecl>(r);
  n->name = names.front();
  n->rules = ctx_.copy(std::vector<ast::Ident*>(names.begin() + 1, names.end()));
  const ast::Token* once = kids.token("once");
  const ast::Token* fixpoint = kids.token("fixpoint");
  n->mode = once != nullptr ? ast::PhaseMode::kOnce : ast::PhaseMode::kFixpoint;
  n->mode_range = once != nullptr ? once->range : fixpoint->range;
  n->max = kids.first<ast::NumberExpr>();
  if (n->max != nullptr) n->mode_range.end = n->max->range.end + 1;  // through the ')'
  push(n);
}

void TreeBuilder::graph(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::GraphBlock>(r);
  n->has_inputs = kids.token("(") != nullptr;
  n->inputs = ctx_.copy(kids.all<ast::Param>());
  n->body = kids.first<ast::Block>();
  push(n);
}

void TreeBuilder::apply(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::ApplyClause>(r);
  n->names = ctx_.copy(kids.all<ast::Ident>());
  push(n);
}

void TreeBuilder::expect(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::ExpectClause>(r);
  n->items = ctx_.copy(non_tokens(kids));
  push(n);
}

void TreeBuilder::test(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::TestDecl>(r);
  n->name = kids.first<ast::Ident>();
  n->graph = kids.first<ast::GraphBlock>();
  std::vector<Node*> clauses;
  for (Node* k : kids.nodes()) {
    if (k->kind == ast::NodeKind::kApply || k->kind == ast::NodeKind::kExpect) clauses.push_back(k);
  }
  n->clauses = ctx_.copy(clauses);
  push(n);
}

void TreeBuilder::documented(SourceRange) {
  Kids kids(take());
  std::vector<ast::Token*> lines = kids.all<ast::Token>();
  auto* decl = static_cast<ast::Decl*>(non_tokens(kids).front());
  if (!lines.empty()) {
    std::string doc;
    for (const ast::Token* line : lines) {
      if (!doc.empty()) doc += '\n';
      doc += line->text;
    }
    decl->doc = ctx_.save(doc);
    decl->doc_range = span(lines.front()->range, lines.back()->range);
  }
  push(decl);
}

void TreeBuilder::file(SourceRange r) {
  Kids kids(take());
  auto* n = ctx_.make<ast::RuleFile>(r);
  std::vector<ast::Decl*> decls;
  for (Node* k : non_tokens(kids)) decls.push_back(static_cast<ast::Decl*>(k));
  n->decls = ctx_.copy(decls);
  push(n);
}

}  // namespace graft::dsl
