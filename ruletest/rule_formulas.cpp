// The element formulas as prover terms (rule_terms.h), as the reference kernels compute them
// (eval/elementwise_formulas.h): exact over the reals where they are piecewise linear, the
// transcendental ones uninterpreted functions; in float32 rounded to nearest, with NaN.
#include <cmath>

#include "ruletest/rule_terms.h"

namespace graft::ruletest {
namespace {

z3::expr need(const std::optional<z3::expr>& param) {
  if (!param) throw Outside{"a formula parameter without a value"};
  return *param;
}

}  // namespace

z3::expr RuleTerms::binary(Formula f, const z3::expr& x, const z3::expr& y,
                           const std::optional<z3::expr>& alpha) {
  // alpha = 1 scales exactly, also in float32: the term without it is the same number.
  auto scaled = [&] { return alpha && !z3::eq(*alpha, number(1)) ? *alpha * y : y; };
  switch (f) {
    case Formula::kAdd: return x + scaled();
    case Formula::kSub: return x - scaled();
    case Formula::kMul: return x * y;
    case Formula::kDiv: return x / y;
    case Formula::kMaximum: return nan_or(x, y, z3::ite(x < y, y, x));
    case Formula::kMinimum: return nan_or(x, y, z3::ite(y < x, y, x));
    case Formula::kPow:
      // x ** 2 is x * x, exactly in float32 too (the reference rounds once from double).
      if (z3::eq(y, number(2))) return x * x;
      return function("pow", {x, y});
    case Formula::kDivTrunc: return rounded_quotient(x, y, Z3_mk_fpa_rtz, "div_trunc");
    case Formula::kDivFloor: return rounded_quotient(x, y, Z3_mk_fpa_rtn, "div_floor");
    default: throw Outside{"an unknown binary formula"};
  }
}

/// trunc(x / y) or floor(x / y) as the reference computes it: the quotient in double, rounded
/// to an integer, then to float32. Over the reals, an uninterpreted function of each kind.
z3::expr RuleTerms::rounded_quotient(const z3::expr& x, const z3::expr& y,
                                     Z3_ast (*rounding)(Z3_context), const char* name) {
  if (!fp_) return function(name, {x, y});
  z3::sort f64 = ctx_.fpa_sort<64>();
  z3::expr rne(ctx_, Z3_mk_fpa_rne(ctx_));
  auto widen = [&](const z3::expr& e) {
    return z3::expr(ctx_, Z3_mk_fpa_to_fp_float(ctx_, rne, e, f64));
  };
  z3::expr q(ctx_, Z3_mk_fpa_div(ctx_, rne, widen(x), widen(y)));
  z3::expr whole(ctx_, Z3_mk_fpa_round_to_integral(ctx_, z3::expr(ctx_, rounding(ctx_)), q));
  return z3::expr(ctx_, Z3_mk_fpa_to_fp_float(ctx_, rne, whole, ctx_.fpa_sort<32>()));
}

z3::expr RuleTerms::unary(Formula f, const z3::expr& v, const std::optional<z3::expr>& alpha,
                          const std::optional<z3::expr>& beta) {
  const z3::expr zero = number(0), one = number(1), six = number(6);
  // std::max / std::min as the reference kernels call them (NaN in the first operand stays).
  auto max0 = [&](const z3::expr& a, const z3::expr& b) { return z3::ite(a < b, b, a); };
  auto min0 = [&](const z3::expr& a, const z3::expr& b) { return z3::ite(b < a, b, a); };
  auto exp = [&](const z3::expr& a) {
    z3::expr e = function("exp", {a});
    // What the proofs need of exp: it is positive (1 + exp(-x) is never 0).
    if (!fp_) constraints_.push_back(e > zero);
    return e;
  };
  switch (f) {
    case Formula::kNeg: return -v;
    case Formula::kReciprocal: return one / v;
    case Formula::kAbs: return fp_ ? z3::abs(v) : z3::ite(v < zero, -v, v);
    case Formula::kRelu: return z3::ite(v < zero, zero, v);
    case Formula::kRelu6: return min0(max0(v, zero), six);
    case Formula::kClamp: {
      z3::expr lo = alpha ? max0(v, *alpha) : v;
      return beta ? min0(lo, *beta) : lo;
    }
    case Formula::kLeakyRelu: return z3::ite(zero < v, v, v * need(alpha));
    case Formula::kElu: return z3::ite(zero < v, v, need(alpha) * (exp(v) - one));
    case Formula::kHardswish: return v * min0(max0(v + number(3), zero), six) / six;
    case Formula::kHardsigmoid: return min0(max0(v + number(3), zero), six) / six;
    case Formula::kSigmoid: return one / (one + exp(-v));
    case Formula::kSilu: return v / (one + exp(-v));
    case Formula::kSqrt: return fp_ ? z3::sqrt(v, ctx_.fpa_rounding_mode()) : function("sqrt", {v});
    case Formula::kRsqrt:
      return one / (fp_ ? z3::sqrt(v, ctx_.fpa_rounding_mode()) : function("sqrt", {v}));
    case Formula::kExp: return exp(v);
    case Formula::kLog: return function("log", {v});
    case Formula::kErf: return function("erf", {v});
    case Formula::kTanh: return function("tanh", {v});
    case Formula::kGelu:
      return number(0.5) * v * (one + function("erf", {v / number(std::sqrt(2.0))}));
    case Formula::kGeluTanh:
      return number(0.5) * v *
             (one + function("tanh", {number(std::sqrt(2.0 / M_PI)) *
                                          (v + number(0.044715) * v * v * v)}));
    case Formula::kSoftplus: throw Outside{"softplus (its threshold switch)"};
    default: throw Outside{"an unknown formula"};
  }
}

/// NaN when either operand is NaN (torch.maximum / minimum), else `value`.
z3::expr RuleTerms::nan_or(const z3::expr& x, const z3::expr& y, const z3::expr& value) {
  if (!fp_) return value;
  return z3::ite(x.mk_is_nan() || y.mk_is_nan(), ctx_.fpa_nan(ctx_.fpa_sort<32>()), value);
}

/// An uninterpreted function: a proof holds for any, a counterexample is not trusted.
z3::expr RuleTerms::function(const char* name, const std::vector<z3::expr>& args) {
  functions_.insert(name);
  z3::sort s = fp_ ? ctx_.fpa_sort<32>() : ctx_.real_sort();
  z3::sort_vector domain(ctx_);
  z3::expr_vector values(ctx_);
  for (const z3::expr& a : args) {
    domain.push_back(a.get_sort());
    values.push_back(a);
  }
  return ctx_.function(name, domain, s)(values);
}

}  // namespace graft::ruletest
