// Sema of one rule: the pattern's scope (parameters, statements, returned values), its `where`
// clauses and benefit, and the replacement, which sees every pattern binding and `$` variable.
// Unused pattern parameters and `$` variables are warnings; a pattern statement whose value
// feeds nothing and is not returned is an error, since a match would erase what it matched
// with nothing in its place.
#include <set>

#include "dsl/sema_internal.h"

namespace graft::dsl::detail {
namespace {

using namespace ast;

/// Whether a pattern value is an op (as opposed to a renamed parameter or a literal).
bool is_op_expr(const Expr* e) {
  return e->kind == NodeKind::kCall || e->kind == NodeKind::kBinary || e->kind == NodeKind::kUnary;
}

}  // namespace

void define(Sema& sema, Scope& scope, const Ident* target, const Node* decl,
            const ValueResult& value) {
  if (target->text == "_") {
    sema.error(target->range, "'_' cannot be used as a name");
    return;
  }
  if (Binding* previous = scope.find(target->text)) {
    Diagnostic& d =
        sema.error(target->range, "redefinition of '" + std::string(target->text) + "'");
    Sema::note(d, previous->range, "'" + std::string(target->text) + "' is first defined here");
    return;
  }
  Binding b;
  b.decl = decl;
  b.range = target->range;
  b.name = target->text;
  b.is_const = value.is_const;
  b.type = value.type;
  scope.add(b);
}

static void check_pattern(Sema& sema, PatternBlock* pattern, Scope& scope, Env& env) {
  for (const Param* p : pattern->params) {
    if (p->name->text == "_") {
      sema.error(p->name->range, "'_' cannot be used as a name");
      continue;
    }
    if (Binding* previous = scope.find_local(p->name->text)) {
      Diagnostic& d =
          sema.error(p->name->range, "duplicate parameter '" + std::string(p->name->text) + "'");
      Sema::note(d, previous->range, "'" + std::string(p->name->text) + "' is first declared here");
      continue;
    }
    Binding b;
    b.decl = p;
    b.range = p->name->range;
    b.name = p->name->text;
    b.is_param = true;
    b.optional = p->optional;
    scope.add(b);
  }
  for (Stmt* s : pattern->body->stmts) {
    if (auto* def = dyn_cast<ParamDefStmt>(s)) {
      sema.error(def->range, "'param' is only allowed in a test graph");
      continue;
    }
    auto* assign = static_cast<AssignStmt*>(s);
    ValueResult v = sema.check_value(assign->value, env);
    if (v.kind != ValueKind::kError && !is_op_expr(assign->value)) {
      sema.error(assign->value->range, "a pattern statement must match an op, as in '" +
                                           std::string(assign->target->text) + " = relu(x)'");
    }
    define(sema, scope, assign->target, assign, ValueResult{});
  }
  std::set<const Node*> returned;
  for (Expr* e : pattern->body->ret->values) {
    ValueResult v = sema.check_value(e, env);
    if (v.kind == ValueKind::kError) continue;
    const auto* name = dyn_cast<NameExpr>(e);
    if (name == nullptr) {
      if (!is_op_expr(e)) sema.error(e->range, "a pattern must return the results of ops");
    } else if (name->decl->kind == NodeKind::kParam) {
      sema.error(e->range, "the pattern returns its parameter '" + std::string(name->name) +
                               "'; a pattern must match at least one op");
    } else if (!returned.insert(name->decl).second) {
      sema.error(e->range, "'" + std::string(name->name) + "' is returned twice");
    }
  }
}

void Sema::check_rule(RuleDecl* rule, CheckedRule& out) {
  Scope pattern_scope;
  std::map<std::string, AttrVar, std::less<>> attr_vars;
  Env env;
  env.mode = Mode::kPattern;
  env.scope = &pattern_scope;
  env.attr_vars = &attr_vars;
  int errors_before = diags_.error_count();
  check_pattern(*this, rule->pattern, pattern_scope, env);
  env.pattern_failed = diags_.error_count() > errors_before;
  out.benefit = env.op_count;

  // Unused pattern bindings: judged on the pattern alone, before `where` and the replacement
  // add their uses.
  for (Binding& b : pattern_scope.locals()) {
    if (b.is_param && b.uses == 0) {
      warning(b.range,
              "pattern parameter '" + std::string(b.name) + "' is never used in the pattern");
    } else if (!b.is_param && b.uses == 0) {
      error(b.range, "pattern value '" + std::string(b.name) + "' is never used or returned");
    }
  }

  const BenefitClause* benefit = nullptr;
  env.mode = Mode::kReplacement;  // `where` reads bindings like a replacement does
  for (Node* clause : rule->clauses) {
    if (auto* where = dyn_cast<WhereClause>(clause)) {
      for (Condition* c : where->conditions) check_condition(c, env);
      continue;
    }
    const auto* b = static_cast<const BenefitClause*>(clause);
    if (benefit != nullptr) {
      Diagnostic& d =
          error(b->range, "duplicate 'benefit' in rule '" + std::string(rule->name->text) + "'");
      note(d, benefit->range, "first given here");
      continue;
    }
    benefit = b;
    if (!b->value->is_int || b->value->int_value > 1000000) {
      error(b->value->range, "benefit must be an integer from 0 to 1000000, got '" +
                                 std::string(b->value->spelling) + "'");
      continue;
    }
    out.benefit = static_cast<int>(b->value->int_value);
    out.explicit_benefit = true;
  }

  // The replacement sees every pattern binding; its own names must be new.
  Scope replacement_scope(&pattern_scope);
  env.scope = &replacement_scope;
  for (Stmt* s : rule->replacement->body->stmts) {
    if (auto* def = dyn_cast<ParamDefStmt>(s)) {
      error(def->range, "'param' is only allowed in a test graph");
      continue;
    }
    auto* assign = static_cast<AssignStmt*>(s);
    ValueResult v = check_value(assign->value, env);
    if (v.kind != ValueKind::kTensorOrScalar && v.kind != ValueKind::kMaybeNone) {
      expect_tensor(assign->value, v, "'" + std::string(assign->target->text) + "'");
    }
    define(*this, replacement_scope, assign->target, assign, v);
  }
  std::span<Expr* const> values = rule->replacement->body->ret->values;
  for (Expr* e : values) {
    ValueResult v = check_value(e, env);
    if (v.kind == ValueKind::kMaybeNone) {
      error(e->range, "the replacement returns '" + std::string(static_cast<NameExpr*>(e)->name) +
                          "', which may be none");
    } else {
      expect_tensor(e, v, "a replacement's return value");
    }
  }
  size_t expected = rule->pattern->body->ret->values.size();
  if (values.size() != expected) {
    Diagnostic& d = error(rule->replacement->body->ret->range,
                          "the replacement returns " + std::to_string(values.size()) + " value" +
                              (values.size() == 1 ? "" : "s") + " but the pattern returns " +
                              std::to_string(expected));
    note(d, rule->pattern->body->ret->range, "the pattern's return is here");
  }
  for (Binding& b : replacement_scope.locals()) {
    if (b.uses == 0) warning(b.range, "'" + std::string(b.name) + "' is computed but never used");
  }
  for (const auto& [name, var] : attr_vars) {
    if (var.bindings == 1 && var.uses == 0) {
      warning(var.first, "'$" + name + "' is bound but never used");
    }
  }
}

}  // namespace graft::dsl::detail
