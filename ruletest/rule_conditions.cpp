// The `where` conditions as prover terms (rule_terms.h), and equality as the verifier compares.
// Conditions on `$` variables and on constants' elements constrain the inputs; conditions on
// ranks, dims and shapes constrain a tensor rule's shapes; conditions on uses and constness
// restrict where a rule applies, not what it computes, and are left out (a proof without them
// holds with them). A dtype condition that excludes float32 makes the rule outside, except
// `dtype(m) == bool`, which makes m's elements 0 or 1.
#include <fmt/format.h>

#include "ruletest/rule_terms.h"

namespace graft::ruletest {
namespace {

/// `lhs op rhs` for `rhs` a term, a set or a range of terms given by `term`.
z3::expr compare(CmpOp op, const z3::expr& lhs, const Term& rhs,
                 const std::function<z3::expr(const Term&)>& term) {
  if (op == CmpOp::kIn && rhs.kind == Term::Kind::kRange && rhs.items.size() == 2) {
    return term(rhs.items[0]) <= lhs && lhs <= term(rhs.items[1]);
  }
  if (op == CmpOp::kIn) {
    z3::expr any = lhs.ctx().bool_val(false);
    for (const Term& item : rhs.items) any = any || lhs == term(item);
    return any;
  }
  const z3::expr r = term(rhs);
  switch (op) {
    case CmpOp::kEq: return lhs == r;
    case CmpOp::kNe: return lhs != r;
    case CmpOp::kLt: return lhs < r;
    case CmpOp::kLe: return lhs <= r;
    case CmpOp::kGt: return lhs > r;
    case CmpOp::kGe: return lhs >= r;
    case CmpOp::kIn: break;
  }
  return lhs == r;
}

}  // namespace

void RuleTerms::conditions(z3::solver& solver) {
  for (const Condition& c : rule_.conditions) {
    if (c.kind == Condition::Kind::kValue) {
      if (tensors_) throw Outside{"a condition on a constant's elements: " + c.text};
      solver.add(element_condition(c));
      continue;
    }
    if (c.kind != Condition::Kind::kCompare) continue;
    if (c.lhs.kind == Term::Kind::kDTypeOf) {
      const bool made_bool = c.lhs.value.kind == ValueRef::Kind::kVar &&
                             bool_inputs_.count(rule_.var_names[c.lhs.value.index]) > 0;
      if (!made_bool) check_dtype_condition(c);
      continue;
    }
    std::optional<z3::expr> holds = compare_condition(c);
    if (holds) solver.add(c.negated ? !*holds : *holds);
  }
}

z3::expr RuleTerms::dim_term(const Term& t) {
  switch (t.kind) {
    case Term::Kind::kNumber:
      if (!t.is_int) throw Outside{"a size that is not an integer"};
      return ctx_.int_val(whole_number(t.number));
    case Term::Kind::kSymbol: return symbol(t.var);
    case Term::Kind::kAttrVar: return int_var(t.var);
    case Term::Kind::kRank:
    case Term::Kind::kDim:
      if (std::optional<z3::expr> size = size_term(t)) return *size;
      throw Outside{"a dim out of range"};
    default: throw Outside{"a size the prover does not model"};
  }
}

/// `rank(v)` or `dim(v, k)` (nullopt: k is out of range); throws NeedRank for an input of
/// open rank.
std::optional<z3::expr> RuleTerms::size_term(const Term& t) {
  const Tensor v = value_of(t.value);
  const std::vector<z3::expr>& dims = algebra_.dims(v);
  const auto rank = static_cast<int64_t>(dims.size());
  if (t.kind == Term::Kind::kRank) return ctx_.int_val(rank);
  const int64_t k = t.dim < 0 ? t.dim + rank : t.dim;
  if (k < 0 || k >= rank) return std::nullopt;
  return dims[static_cast<size_t>(k)];
}

std::optional<z3::expr> RuleTerms::compare_condition(const Condition& c) {
  if (c.lhs.kind == Term::Kind::kAttrVar) {
    if (is_list_set(c)) return std::nullopt;  // tried list by list (list_choice)
    auto num = [&](const Term& t) -> z3::expr {
      if (t.kind == Term::Kind::kNumber) return number(t.number);
      if (t.kind == Term::Kind::kAttrVar) return attr_var(t.var);
      throw Outside{"a condition the prover does not model: " + c.text};
    };
    z3::expr holds = compare(c.op, attr_var(c.lhs.var), c.rhs, num);
    // The same condition on the variable as an int attribute (a transpose's dim).
    if (int_vars_.count(c.lhs.var) > 0) {
      holds = holds && compare(c.op, int_var(c.lhs.var), c.rhs,
                               [&](const Term& t) { return dim_term(t); });
    }
    return holds;
  }
  if (!tensors_) return std::nullopt;
  switch (c.lhs.kind) {
    case Term::Kind::kRank:
    case Term::Kind::kDim: {
      // A bound on an open rank (`rank(x) >= 2`) only narrows where the rule applies; an
      // equality fixes it, which the terms may need.
      if (c.lhs.kind == Term::Kind::kRank && c.op != CmpOp::kEq &&
          !value_of(c.lhs.value).dims) {
        return std::nullopt;
      }
      std::optional<z3::expr> size = size_term(c.lhs);
      if (!size) return ctx_.bool_val(false);  // dim(v, k) of a v without dim k
      return compare(c.op, *size, c.rhs, [&](const Term& t) { return dim_term(t); });
    }
    case Term::Kind::kShapeOf: {
      if (c.op != CmpOp::kEq && c.op != CmpOp::kNe) break;
      z3::expr eq = ctx_.bool_val(true);
      if (c.rhs.kind == Term::Kind::kShapeOf) {
        eq = algebra_.same_shape(value_of(c.lhs.value), value_of(c.rhs.value));
      } else if (c.rhs.kind == Term::Kind::kList) {
        const Tensor v = value_of(c.lhs.value);
        const std::vector<z3::expr>& dims = algebra_.dims(v);
        if (dims.size() != c.rhs.items.size()) {
          eq = ctx_.bool_val(false);
        } else {
          for (size_t k = 0; k < dims.size(); ++k) {
            const Term& item = c.rhs.items[k];
            if (item.kind == Term::Kind::kEllipsis) throw Outside{"a shape with '...': " + c.text};
            if (item.kind != Term::Kind::kWildcard) eq = eq && dims[k] == dim_term(item);
          }
        }
      } else {
        break;
      }
      return c.op == CmpOp::kEq ? eq : !eq;
    }
    default: break;
  }
  return std::nullopt;
}

/// `value(w) op rhs` for the element of `w` the terms stand for: every element satisfies it.
/// Negated, it says that some element does not, which no single element's term can state.
z3::expr RuleTerms::element_condition(const Condition& c) {
  if (c.negated) throw Outside{"a negated condition on a constant's elements: " + c.text};
  if (c.values[0].kind != ValueRef::Kind::kVar) throw Outside{"a condition on " + c.text};
  z3::expr x = input(rule_.var_names[c.values[0].index]);
  auto num = [&](const Term& t) {
    if (t.tolerance > 0) throw Outside{"an element compared within a tolerance: " + c.text};
    return number(t.kind == Term::Kind::kBool ? (t.flag ? 1.0 : 0.0) : t.number);
  };
  // In float32, equality as the matcher tests it: -0 equals 0, NaN equals nothing.
  auto eq = [&](const z3::expr& y) { return fp_ ? z3::fp_eq(x, y) : x == y; };
  switch (c.op) {
    case CmpOp::kEq: return eq(num(c.rhs));
    case CmpOp::kNe: return !eq(num(c.rhs));
    case CmpOp::kLt: return x < num(c.rhs);
    case CmpOp::kLe: return x <= num(c.rhs);
    case CmpOp::kGt: return x > num(c.rhs);
    case CmpOp::kGe: return x >= num(c.rhs);
    case CmpOp::kIn: break;
  }
  if (c.rhs.kind == Term::Kind::kRange && c.rhs.items.size() == 2) {
    return num(c.rhs.items[0]) <= x && x <= num(c.rhs.items[1]);
  }
  z3::expr any = ctx_.bool_val(false);
  for (const Term& item : c.rhs.items) any = any || eq(num(item));
  return any;
}

void RuleTerms::check_dtype_condition(const Condition& c) {
  bool f32 = false, other_float = false;
  auto note = [&](DType d) {
    f32 = f32 || d == DType::kFloat32;
    other_float = other_float || d == DType::kFloat16 || d == DType::kBFloat16 ||
                  d == DType::kFloat64;
  };
  if (c.rhs.kind == Term::Kind::kDType) note(c.rhs.dtype);
  for (const Term& item : c.rhs.items) note(item.dtype);
  const bool admits = (c.op == CmpOp::kNe) != f32;
  if (admits != c.negated) return;
  // A rule for float16, bfloat16 or float64 only: over the reals its dtype does not matter
  // (a systematic difference is one in every float dtype); float32 is not its arithmetic.
  const bool for_other_floats = !c.negated && c.op != CmpOp::kNe && other_float;
  if (!fp_ && for_other_floats) return;
  throw Outside{for_other_floats ? "float32 is not the rule's dtype"
                                 : "a rule for other dtypes than float32"};
}

/// Equal as the verifier compares: NaN matches NaN, and 0 matches -0.
z3::expr RuleTerms::same(const z3::expr& a, const z3::expr& b) {
  if (!fp_) return a == b;
  return (a.mk_is_nan() && b.mk_is_nan()) || z3::expr(ctx_, Z3_mk_fpa_eq(ctx_, a, b));
}

}  // namespace graft::ruletest
