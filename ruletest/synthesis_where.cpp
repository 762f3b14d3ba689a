// Synth's reading of a rule's `where` clause (synthesis.h): the hints it takes from conditions
// on parameters (const, param, buffer, value, rank, shape, dim, dtype, not output) and the
// values of `$var`s that satisfy the conditions on them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/ir/half.h"
#include "ruletest/synthesis.h"

namespace graft::ruletest::synthesis {

/// Reads the conditions the synthesiser can help satisfy: const(...), param(...), buffer(...)
/// and value(...) make parameters constants (buffers, filled with a value that satisfies the
/// comparison), rank/shape/dim give shapes, conditions on `$v` filter its values, and
/// `not output(y)` asks for a user of the returned values. The rest is left to the matcher.
void Synth::read_where() {
  for (const ast::Node* clause : rule_.clauses) {
    const auto* where = ast::dyn_cast<ast::WhereClause>(clause);
    if (where == nullptr) continue;
    for (const ast::Condition* c : where->conditions) read_condition(*c);
  }
}

void Synth::read_condition(const ast::Condition& c) {
  if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(c.lhs)) {
    var_conditions_[std::string(var->name)].push_back(&c);
    return;
  }
  const auto* call = ast::dyn_cast<ast::CallExpr>(c.lhs);
  if (call == nullptr || call->ops.empty()) return;
  std::string_view pred = call->ops[0]->text;
  auto arg_name = [&](size_t i) -> std::string {
    if (i >= call->args.size()) return "";
    const auto* n = ast::dyn_cast<ast::NameExpr>(call->args[i]->value);
    return n != nullptr ? std::string(n->name) : "";
  };
  if (pred == "output" && c.negated) {
    wrap_outputs_ = true;
    return;
  }
  if (c.negated) return;
  const auto* rhs_number = ast::dyn_cast<ast::NumberExpr>(c.rhs);
  if (pred == "const" || pred == "param" || pred == "buffer") {
    for (size_t i = 0; i < call->args.size(); ++i) {
      const_.insert(arg_name(i));
      if (pred == "buffer") buffers_.insert(arg_name(i));
    }
  } else if (pred == "value") {
    const_.insert(arg_name(0));
    if (std::optional<double> fill = fill_satisfying(c)) fill_hint_[arg_name(0)] = *fill;
  } else if (pred == "rank") {
    if (c.op == ast::CmpOp::kEq && rhs_number != nullptr) {
      rank_hint_[arg_name(0)] = static_cast<int>(rhs_number->int_value);
    } else if (const auto* set = ast::dyn_cast<ast::SetExpr>(c.rhs); set && c.op == ast::CmpOp::kIn) {
      if (const auto* n = ast::dyn_cast<ast::NumberExpr>(set->items[0])) {
        rank_hint_[arg_name(0)] = static_cast<int>(n->int_value);
      }
    }
  } else if (pred == "shape" && c.op == ast::CmpOp::kEq) {
    const auto* list = ast::dyn_cast<ast::ListExpr>(c.rhs);
    if (list == nullptr) return;
    bool ellipsis = false;
    for (const ast::Expr* item : list->items) ellipsis = ellipsis || item->kind == ast::NodeKind::kEllipsis;
    if (ellipsis) return;
    std::string name = arg_name(0);
    rank_hint_[name] = static_cast<int>(list->items.size());
    for (size_t i = 0; i < list->items.size(); ++i) {
      if (const auto* n = ast::dyn_cast<ast::NumberExpr>(list->items[i])) {
        dim_hint_[name][static_cast<int>(i)] = n->int_value;
      }
    }
  } else if (pred == "dtype" && c.op == ast::CmpOp::kEq) {
    const auto* name = ast::dyn_cast<ast::NameExpr>(c.rhs);
    std::optional<DType> dtype = name != nullptr ? parse_dtype(name->name) : std::nullopt;
    if (dtype) dtype_hint_[arg_name(0)] = *dtype;
  } else if (pred == "dtype" && c.op == ast::CmpOp::kIn) {
    // The variant's own dtype when the set admits it, else one of the set's that the
    // reference computes in, varying with the variant.
    const auto* set = ast::dyn_cast<ast::SetExpr>(c.rhs);
    std::vector<DType> computable;
    bool admits_own = false;
    for (const ast::Expr* item : set ? set->items : std::span<ast::Expr* const>{}) {
      const auto* name = ast::dyn_cast<ast::NameExpr>(item);
      std::optional<DType> dtype = name != nullptr ? parse_dtype(name->name) : std::nullopt;
      if (!dtype) continue;
      admits_own = admits_own || *dtype == input_dtype_;
      if (*dtype == DType::kFloat32 || *dtype == DType::kInt64 || *dtype == DType::kBool || is_half(*dtype)) {
        computable.push_back(*dtype);
      }
    }
    if (!admits_own && !computable.empty()) {
      dtype_hint_[arg_name(0)] = computable[static_cast<size_t>(variant_) % computable.size()];
    }
  } else if (pred == "dim" && c.op == ast::CmpOp::kEq && rhs_number != nullptr &&
             call->args.size() == 2) {
    if (const auto* idx = ast::dyn_cast<ast::NumberExpr>(call->args[1]->value)) {
      dim_hint_[arg_name(0)][static_cast<int>(idx->int_value)] = rhs_number->int_value;
    }
  }
}

/// A value every element of a constant may take to satisfy `value(w) op rhs` (not negated):
/// the number itself, or one past it for `!=`, `<` and `>`; the first of a set, a range's
/// lower end.
std::optional<double> Synth::fill_satisfying(const ast::Condition& c) {
  auto number = [](const ast::Expr* e) -> std::optional<double> {
    if (const auto* tol = ast::dyn_cast<ast::ToleranceExpr>(e)) e = tol->value;
    if (const auto* n = ast::dyn_cast<ast::NumberExpr>(e)) return n->float_value;
    if (const auto* b = ast::dyn_cast<ast::BoolExpr>(e)) return b->value ? 1.0 : 0.0;
    return std::nullopt;
  };
  if (const auto* set = ast::dyn_cast<ast::SetExpr>(c.rhs)) return number(set->items[0]);
  if (const auto* range = ast::dyn_cast<ast::RangeExpr>(c.rhs)) return range->lo->float_value;
  std::optional<double> v = number(c.rhs);
  if (!v || !std::isfinite(*v)) return v;
  switch (c.op) {
    case ast::CmpOp::kNe:
    case ast::CmpOp::kGt: return *v + 1;
    case ast::CmpOp::kLt: return *v - 1;
    default: return v;
  }
}

/// Whether `value` of `$var` satisfies condition `c` (conditions on other, unbound variables
/// and on non-numbers hold: the matcher has the last word).
bool Synth::holds(const ast::Condition& c, const AttrValue& value) const {
  std::optional<double> v = numeric(value);
  if (c.rhs == nullptr) return true;
  auto rhs_value = [&](const ast::Expr* e) -> std::optional<double> {
    if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(e)) {
      auto it = vars_.find(std::string(var->name));
      return it == vars_.end() ? std::nullopt : numeric(it->second);
    }
    if (const auto* tol = ast::dyn_cast<ast::ToleranceExpr>(e)) return tol->value->float_value;
    if (const auto* n = ast::dyn_cast<ast::NumberExpr>(e)) return n->float_value;
    if (const auto* b = ast::dyn_cast<ast::BoolExpr>(e)) return b->value ? 1.0 : 0.0;
    return std::nullopt;
  };
  if (!v) {
    // Lists (`$p in {[1, 0], [0, 2, 1]}`, `$s == [1, 1]`): equality only.
    std::vector<const ast::Expr*> items;
    if (const auto* set = ast::dyn_cast<ast::SetExpr>(c.rhs)) {
      items.assign(set->items.begin(), set->items.end());
    } else if (c.rhs != nullptr && (c.op == ast::CmpOp::kEq || c.op == ast::CmpOp::kNe)) {
      items = {c.rhs};
    }
    if (items.empty()) return true;
    bool any = std::any_of(items.begin(), items.end(), [&](const ast::Expr* e) {
      std::optional<AttrValue> lit = literal_value(e);
      return lit && attr_equal(*lit, value);
    });
    bool result = c.op == ast::CmpOp::kNe ? !any : any;
    return c.negated ? !result : result;
  }
  bool result = true;
  if (c.op == ast::CmpOp::kIn) {
    if (const auto* set = ast::dyn_cast<ast::SetExpr>(c.rhs)) {
      result = false;
      for (const ast::Expr* item : set->items) result = result || rhs_value(item) == v;
    } else if (const auto* range = ast::dyn_cast<ast::RangeExpr>(c.rhs)) {
      result = *v >= range->lo->float_value && *v <= range->hi->float_value;
    }
  } else {
    std::optional<double> r = rhs_value(c.rhs);
    if (!r) return true;
    double tol = 0;
    if (const auto* t = ast::dyn_cast<ast::ToleranceExpr>(c.rhs)) tol = t->tolerance->float_value;
    switch (c.op) {
      case ast::CmpOp::kEq: result = std::abs(*v - *r) <= tol; break;
      case ast::CmpOp::kNe: result = std::abs(*v - *r) > tol; break;
      case ast::CmpOp::kLt: result = *v < *r; break;
      case ast::CmpOp::kLe: result = *v <= *r; break;
      case ast::CmpOp::kGt: result = *v > *r; break;
      case ast::CmpOp::kGe: result = *v >= *r; break;
      default: break;
    }
  }
  return c.negated ? !result : result;
}

/// The value of `$var`: bound already, or chosen among `candidates` and the literals the
/// rule's conditions on it mention, keeping those that satisfy every condition.
std::optional<AttrValue> Synth::choose_var(const std::string& var, std::vector<AttrValue> candidates) {
  if (auto it = vars_.find(var); it != vars_.end()) return it->second;
  const std::vector<const ast::Condition*>& conditions = var_conditions_[var];
  for (const ast::Condition* c : conditions) {
    std::vector<const ast::Expr*> mentioned;
    if (const auto* set = ast::dyn_cast<ast::SetExpr>(c->rhs)) {
      mentioned.assign(set->items.begin(), set->items.end());
    } else if (const auto* range = ast::dyn_cast<ast::RangeExpr>(c->rhs)) {
      mentioned = {range->lo, range->hi};
    } else if (c->rhs != nullptr) {
      mentioned = {c->rhs};
    }
    for (const ast::Expr* e : mentioned) {
      if (std::optional<AttrValue> lit = literal_value(e)) {
        // An int[2] attribute compared with an int: keep the candidates' kind.
        if (!candidates.empty() && std::holds_alternative<std::vector<int64_t>>(candidates[0]) &&
            std::holds_alternative<int64_t>(*lit)) {
          lit = std::vector<int64_t>(std::get<std::vector<int64_t>>(candidates[0]).size(),
                                     std::get<int64_t>(*lit));
        }
        candidates.push_back(*lit);
        // And values past it, for a strict bound (`$eps > 0.1`, `$k < 3`).
        if (std::holds_alternative<double>(*lit)) {
          const double d = std::get<double>(*lit);
          for (double v : {d * 2, d / 2, d + 1, d - 1}) {
            candidates.emplace_back(std::in_place_type<double>, v);
          }
        } else if (std::holds_alternative<int64_t>(*lit)) {
          const int64_t i = std::get<int64_t>(*lit);
          candidates.emplace_back(std::in_place_type<int64_t>, i + 1);
          candidates.emplace_back(std::in_place_type<int64_t>, i - 1);
        }
      }
    }
  }
  std::vector<AttrValue> ok;
  for (const AttrValue& v : candidates) {
    bool all = std::all_of(conditions.begin(), conditions.end(),
                           [&](const ast::Condition* c) { return holds(*c, v); });
    bool seen = std::any_of(ok.begin(), ok.end(), [&](const AttrValue& o) { return attr_equal(o, v); });
    if (all && !seen) ok.push_back(v);
  }
  if (ok.empty()) {
    fail(fmt::format("no value of ${} the synthesiser tries satisfies the rule's conditions on it",
                     var));
    return std::nullopt;
  }
  AttrValue chosen = ok[choose(static_cast<int>(ok.size()))];
  vars_[var] = chosen;
  return chosen;
}
}  // namespace graft::ruletest::synthesis
