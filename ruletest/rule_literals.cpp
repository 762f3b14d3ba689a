// A walk over a rule's expressions collecting its numeric literals.
#include "ruletest/rule_literals.h"

#include <algorithm>
#include <cmath>

#include "dsl/literal.h"

namespace graft::ruletest {
namespace {

namespace ast = dsl::ast;

class LiteralCollector {
 public:
  void expr(const ast::Expr* e) {
    if (e == nullptr) return;
    if (const auto* n = ast::dyn_cast<ast::NumberExpr>(e)) {
      number(n);
    } else if (const auto* call = ast::dyn_cast<ast::CallExpr>(e)) {
      for (const ast::Arg* a : call->args) expr(a->value);
    } else if (const auto* b = ast::dyn_cast<ast::BinaryExpr>(e)) {
      expr(b->lhs);
      expr(b->rhs);
    } else if (const auto* u = ast::dyn_cast<ast::UnaryExpr>(e)) {
      expr(u->operand);
    } else if (const auto* l = ast::dyn_cast<ast::ListExpr>(e)) {
      for (const ast::Expr* item : l->items) expr(item);
    } else if (const auto* s = ast::dyn_cast<ast::SetExpr>(e)) {
      for (const ast::Expr* item : s->items) expr(item);
    } else if (const auto* r = ast::dyn_cast<ast::RangeExpr>(e)) {
      number(r->lo);
      number(r->hi);
    } else if (const auto* t = ast::dyn_cast<ast::ToleranceExpr>(e)) {
      number(t->value);
    }
  }

  void block(const ast::Block* b) {
    if (b == nullptr) return;
    for (const ast::Stmt* s : b->stmts) {
      if (const auto* a = ast::dyn_cast<ast::AssignStmt>(s)) expr(a->value);
    }
    if (b->ret != nullptr) {
      for (const ast::Expr* e : b->ret->values) expr(e);
    }
  }

  std::vector<double> values;

 private:
  void number(const ast::NumberExpr* n) {
    if (n == nullptr) return;
    std::optional<AttrValue> v = dsl::literal_value(n);
    double d = 0;
    if (const auto* i = v ? std::get_if<int64_t>(&*v) : nullptr) {
      d = static_cast<double>(*i);
    } else if (const auto* f = v ? std::get_if<double>(&*v) : nullptr) {
      d = *f;
    } else {
      return;
    }
    if (std::isfinite(d) && std::find(values.begin(), values.end(), d) == values.end()) {
      values.push_back(d);
    }
  }
};

}  // namespace

std::vector<double> numeric_literals(const dsl::CheckedRule& rule) {
  LiteralCollector c;
  c.block(rule.decl->pattern->body);
  for (const ast::Node* clause : rule.decl->clauses) {
    if (const auto* w = ast::dyn_cast<ast::WhereClause>(clause)) {
      for (const ast::Condition* cond : w->conditions) {
        c.expr(cond->lhs);
        c.expr(cond->rhs);
      }
    }
  }
  if (rule.decl->replacement != nullptr) c.block(rule.decl->replacement->body);
  return c.values;
}

}  // namespace graft::ruletest
