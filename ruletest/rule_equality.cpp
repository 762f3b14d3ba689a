// The terms of the prover's queries (rule_equality.h): each side of the rule becomes a Z3 term,
// per element. Over the reals the piecewise-linear formulas are exact and the transcendental
// ones (exp, erf, tanh, …) uninterpreted functions. In float32 each op rounds to nearest and
// NaN propagates as in the reference kernels (eval/elementwise_formulas.h), so `x * 0 → 0` is
// refuted by x = inf; sqrt and the rounded divisions are exact there too.
#include "ruletest/rule_equality.h"

#include <fmt/format.h>
#include <z3++.h>

#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace graft::ruletest {
namespace {

using Expr = z3::expr;

/// `d` exactly, as a decimal numeral (a double's expansion is finite).
std::string exact_decimal(double d) {
  std::string s = fmt::format("{:.1100f}", d);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

/// Interrupts the solver running in `ctx` at `deadline` unless destroyed first. Z3's own
/// "timeout" parameter would do it too, but it switches the solver to an incremental strategy
/// that is far slower on floating point.
class Watchdog {
 public:
  Watchdog(z3::context& ctx, Deadline deadline)
      : thread_([this, &ctx, deadline] {
          std::unique_lock lock(mutex_);
          if (!done_changed_.wait_until(lock, deadline, [this] { return done_; })) ctx.interrupt();
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_changed_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::thread thread_;  // last: it uses the members above
};

class RuleTerms {
 public:
  /// `choice`: the alternative each PatNode takes (`(contiguous | clone)(x)`).
  RuleTerms(const Rule& rule, bool float32, std::vector<size_t> choice)
      : rule_(rule), fp_(float32), choice_(std::move(choice)) {
    if (fp_) ctx_.set_rounding_mode(z3::RNE);
  }

  /// Whether the sides are equal for every input, asking the solver until `deadline`.
  Equality equal(Deadline deadline, bool prefer_special) {
    std::vector<Expr> lhs, rhs;
    for (uint32_t root : rule_.roots) lhs.push_back(node_value(root));
    for (const ReplValue& r : rule_.results) rhs.push_back(repl_value(r));
    z3::solver solver(ctx_);
    conditions(solver);
    for (const Expr& c : constraints_) solver.add(c);  // after conditions, which add some
    Expr differ = ctx_.bool_val(false);
    for (size_t i = 0; i < lhs.size(); ++i) differ = differ || !same(lhs[i], rhs[i]);
    solver.add(differ);
    Equality out;
    out.functions = functions_;
    z3::check_result result = check(solver, deadline, &out.timed_out);
    if (result != z3::sat) {
      if (result == z3::unsat) out.equal = true;
      return out;
    }
    out.equal = false;
    z3::model m = solver.get_model();
    out.counterexample_special = special_values(m, lhs, rhs);
    if (fp_ && prefer_special && !out.counterexample_special && functions_.empty()) {
      // A rounding difference may hide one at inf or NaN, which is the one worth reporting
      // (with uninterpreted functions, neither proves anything). A fresh solver, as Z3 solves
      // a pushed scope with a slower, incremental strategy.
      z3::solver special(ctx_);
      for (const Expr& a : solver.assertions()) special.add(a);
      special.add(some_special(lhs, rhs));
      bool ignored = false;
      if (check(special, deadline, &ignored) == z3::sat) {
        m = special.get_model();
        out.counterexample_special = true;
      }
    }
    std::vector<std::string> inputs;
    for (const auto& [name, e] : inputs_) inputs.push_back(name + " = " + text(m.eval(e, true)));
    std::string values;
    for (size_t i = 0; i < lhs.size(); ++i) {
      values += fmt::format("{}pattern {}, replacement {}", i > 0 ? "; " : "",
                            text(m.eval(lhs[i], true)), text(m.eval(rhs[i], true)));
    }
    out.counterexample = fmt::format("{}: {}", fmt::join(inputs, ", "), values);
    return out;
  }

 private:
  // ** terms **

  Expr number(double v) {
    if (fp_) return ctx_.fpa_val(static_cast<float>(v));
    if (!std::isfinite(v)) throw Outside{"a non-finite literal has no real value"};
    return ctx_.real_val(exact_decimal(v).c_str());
  }

  Expr input(const std::string& name) {
    auto it = inputs_.find(name);
    if (it != inputs_.end()) return it->second;
    Expr e = fp_ ? ctx_.fpa_const(name.c_str(), 8, 24) : ctx_.real_const(name.c_str());
    inputs_.emplace(name, e);
    return e;
  }

  /// An attribute's or a `$` scalar's value. Models give them as numbers, so in float32 they
  /// are finite (a slope of inf would refute most rules about slopes); tensors' elements are
  /// not.
  Expr attribute(const std::string& name) {
    const bool fresh = inputs_.find(name) == inputs_.end();
    Expr e = input(name);
    if (fp_ && fresh) constraints_.push_back(!e.mk_is_inf() && !e.mk_is_nan());
    return e;
  }

  Expr attr_var(uint32_t var) { return attribute("$" + rule_.attr_var_names[var]); }

  Expr node_value(uint32_t index) {
    if (auto it = nodes_.find(index); it != nodes_.end()) return it->second;
    const PatNode& node = rule_.nodes[index];
    const PatAlt& alt = node.alts[index < choice_.size() ? choice_[index] : 0];
    std::vector<std::optional<Expr>> operands;
    for (const PatValue& v : alt.operands) operands.push_back(pattern_operand(v));
    std::vector<std::optional<Expr>> attrs(alt.schema->attrs.size());
    std::vector<bool> fixed(alt.schema->attrs.size(), false);
    for (const AttrCheck& c : alt.attrs) attrs[c.attr] = pattern_attr(c, *alt.schema, &fixed);
    for (size_t i = 0; i < attrs.size(); ++i) {
      // An attribute the pattern leaves open may have any value.
      if (!fixed[i]) attrs[i] = free_attr(*alt.schema, i);
    }
    Expr e = apply(*alt.schema, operands, attrs, [&](size_t i) -> std::optional<AttrValue> {
      for (const AttrCheck& c : alt.attrs) {
        if (c.attr == i && c.kind == AttrCheck::Kind::kEquals) return c.value;
      }
      return std::nullopt;
    });
    nodes_.emplace(index, e);
    return e;
  }

  std::optional<Expr> pattern_operand(const PatValue& v) {
    switch (v.kind) {
      case PatValue::Kind::kVar: return input(rule_.var_names[v.index]);
      case PatValue::Kind::kNode: return node_value(v.index);
      case PatValue::Kind::kScalar:
        if (v.tolerance > 0) throw Outside{"a scalar matched within a tolerance"};
        return number(v.scalar);
      case PatValue::Kind::kScalarVar: return attr_var(v.index);
      case PatValue::Kind::kNone: return std::nullopt;
      case PatValue::Kind::kAny: throw Outside{"an operand left open ('_')"};
    }
    return std::nullopt;
  }

  /// The value an attribute check gives an attribute (a literal, a variable, or a fresh value
  /// constrained to a set or range).
  std::optional<Expr> pattern_attr(const AttrCheck& c, const OpSchema& op, std::vector<bool>* fixed) {
    (*fixed)[c.attr] = true;
    switch (c.kind) {
      case AttrCheck::Kind::kEquals:
        if (c.tolerance > 0) throw Outside{"an attribute matched within a tolerance"};
        return attr_number(c.value);
      case AttrCheck::Kind::kBind: return attr_var(c.var);
      case AttrCheck::Kind::kRange: {
        Expr e = attribute(fmt::format("{}.{}#{}", op.name, op.attrs[c.attr].name, inputs_.size()));
        constraints_.push_back(number(c.lo) <= e && e <= number(c.hi));
        return e;
      }
      case AttrCheck::Kind::kIn:
      case AttrCheck::Kind::kList:
      case AttrCheck::Kind::kAny: (*fixed)[c.attr] = false; return std::nullopt;
    }
    return std::nullopt;
  }

  std::optional<Expr> free_attr(const OpSchema& op, size_t i) {
    const AttrType t = op.attrs[i].type;
    if (t != AttrType::kInt && t != AttrType::kFloat && t != AttrType::kScalar) return std::nullopt;
    return attribute(fmt::format("{}.{}#{}", op.name, op.attrs[i].name, inputs_.size()));
  }

  std::optional<Expr> attr_number(const AttrValue& v) {
    if (const auto* i = std::get_if<int64_t>(&v)) return number(static_cast<double>(*i));
    if (const auto* d = std::get_if<double>(&v)) return number(*d);
    if (const auto* b = std::get_if<bool>(&v)) return number(*b ? 1 : 0);
    return std::nullopt;
  }

  Expr repl_value(const ReplValue& v) {
    switch (v.kind) {
      case ReplValue::Kind::kValue:
        return v.value.kind == ValueRef::Kind::kVar ? input(rule_.var_names[v.value.index])
                                                    : node_value(v.value.index);
      case ReplValue::Kind::kResult: return repl_op(v.index);
      case ReplValue::Kind::kScalar: return number(v.scalar.value);
      case ReplValue::Kind::kAttrVar: return attr_var(v.index);
      default: throw Outside{"a replacement value other than an op, a binding or a number"};
    }
  }

  Expr repl_op(uint32_t index) {
    if (auto it = results_.find(index); it != results_.end()) return it->second;
    const ReplOp& op = rule_.replacement[index];
    std::vector<std::optional<Expr>> operands;
    for (const ReplValue& v : op.operands) {
      operands.push_back(v.kind == ReplValue::Kind::kNone ? std::nullopt
                                                          : std::optional<Expr>(repl_value(v)));
    }
    std::vector<std::optional<Expr>> attrs(op.schema->attrs.size());
    for (size_t i = 0; i < attrs.size(); ++i) {
      const ReplValue& a = i < op.attrs.size() ? op.attrs[i] : ReplValue{};
      if (a.kind == ReplValue::Kind::kLiteral) {
        attrs[i] = attr_number(a.literal);
      } else if (a.kind == ReplValue::Kind::kAttrVar) {
        attrs[i] = attr_var(a.index);
      } else if (a.kind == ReplValue::Kind::kNone) {
        attrs[i] = op.schema->attrs[i].has_default ? attr_number(op.schema->attrs[i].default_value)
                                                   : std::nullopt;
      } else {
        throw Outside{"a replacement attribute computed from the match"};
      }
    }
    Expr e = apply(*op.schema, operands, attrs, [&](size_t i) -> std::optional<AttrValue> {
      const ReplValue& a = i < op.attrs.size() ? op.attrs[i] : ReplValue{};
      if (a.kind == ReplValue::Kind::kLiteral) return a.literal;
      if (a.kind == ReplValue::Kind::kNone && op.schema->attrs[i].has_default) {
        return op.schema->attrs[i].default_value;
      }
      return std::nullopt;
    });
    results_.emplace(index, e);
    return e;
  }

  // ** ops **

  /// `op` over its operands; `literal(i)` is attribute i's literal value when it has one (for
  /// string attributes that pick a formula, and training).
  template <typename Literal>
  Expr apply(const OpSchema& op, const std::vector<std::optional<Expr>>& operands,
             const std::vector<std::optional<Expr>>& attrs, Literal literal) {
    auto operand = [&](size_t i) -> Expr {
      if (i >= operands.size() || !operands[i]) throw Outside{op.name + " without its operand"};
      return *operands[i];
    };
    switch (op.family) {
      case OpFamily::kIdentity: return operand(0);
      case OpFamily::kDropout: {
        // The identity at inference, and with p = 0 in training too.
        std::optional<AttrValue> training = literal(static_cast<size_t>(op.attr_index("training")));
        std::optional<AttrValue> p = literal(static_cast<size_t>(op.attr_index("p")));
        const bool p0 = p && attr_equal(*p, AttrValue{0.0});
        if (!p0 && (!training || *training != AttrValue{false})) {
          throw Outside{"dropout that may train with p > 0"};
        }
        return operand(0);
      }
      case OpFamily::kFullLike: {
        int dtype = op.attr_index("dtype");
        if (dtype >= 0 && literal(static_cast<size_t>(dtype)) != AttrValue{}) {
          throw Outside{"full_like with a dtype"};
        }
        std::optional<Expr> fill = attrs[static_cast<size_t>(op.attr_index("fill_value"))];
        if (!fill) throw Outside{"full_like without its value"};
        return *fill;
      }
      case OpFamily::kUnary:
      case OpFamily::kBinary: break;
      default: throw Outside{"'" + op.name + "' is not an elementwise formula"};
    }
    const ElementwiseFacts& facts = *op.elementwise;
    Formula formula = facts.formula;
    for (const FormulaVariant& variant : facts.variants) {
      std::optional<AttrValue> value = literal(static_cast<size_t>(variant.index));
      if (!value) throw Outside{"'" + op.name + "' with '" + variant.attr + "' left open"};
      if (*value == AttrValue{variant.value}) formula = variant.formula;
    }
    auto param = [&](const FormulaParam& p) -> std::optional<Expr> {
      if (p.attr.empty()) return std::nullopt;
      std::optional<Expr> v = attrs[static_cast<size_t>(p.index)];
      if (v) return v;
      if (!std::isfinite(p.none_value)) return std::nullopt;  // an absent clamp bound
      return number(p.none_value);
    };
    std::optional<Expr> alpha = param(facts.alpha), beta = param(facts.beta);
    Expr x = operand(0);
    if (is_binary(formula)) return binary(formula, x, operand(1), alpha);
    return unary(formula, x, alpha, beta);
  }

  Expr binary(Formula f, const Expr& x, const Expr& y, const std::optional<Expr>& alpha) {
    auto scaled = [&] { return alpha ? *alpha * y : y; };
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
        return function("pow", x, y);
      case Formula::kDivTrunc: return rounded_quotient(x, y, Z3_mk_fpa_rtz, "div_trunc");
      case Formula::kDivFloor: return rounded_quotient(x, y, Z3_mk_fpa_rtn, "div_floor");
      default: throw Outside{"an unknown binary formula"};
    }
  }

  /// trunc(x / y) or floor(x / y) as the reference computes it: the quotient in double, rounded
  /// to an integer, then to float32. Over the reals, an uninterpreted function of each kind.
  Expr rounded_quotient(const Expr& x, const Expr& y, Z3_ast (*rounding)(Z3_context),
                        const char* name) {
    if (!fp_) return function(name, x, y);
    z3::sort f64 = ctx_.fpa_sort<64>();
    Expr rne(ctx_, Z3_mk_fpa_rne(ctx_));
    auto widen = [&](const Expr& e) {
      return Expr(ctx_, Z3_mk_fpa_to_fp_float(ctx_, rne, e, f64));
    };
    Expr q(ctx_, Z3_mk_fpa_div(ctx_, rne, widen(x), widen(y)));
    Expr whole(ctx_, Z3_mk_fpa_round_to_integral(ctx_, Expr(ctx_, rounding(ctx_)), q));
    return Expr(ctx_, Z3_mk_fpa_to_fp_float(ctx_, rne, whole, ctx_.fpa_sort<32>()));
  }

  Expr unary(Formula f, const Expr& v, const std::optional<Expr>& alpha,
             const std::optional<Expr>& beta) {
    const Expr zero = number(0), one = number(1), six = number(6);
    // std::max / std::min as the reference kernels call them (NaN in the first operand stays).
    auto max0 = [&](const Expr& a, const Expr& b) { return z3::ite(a < b, b, a); };
    auto min0 = [&](const Expr& a, const Expr& b) { return z3::ite(b < a, b, a); };
    auto exp = [&](const Expr& a) {
      Expr e = function("exp", a);
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
        Expr lo = alpha ? max0(v, *alpha) : v;
        return beta ? min0(lo, *beta) : lo;
      }
      case Formula::kLeakyRelu: return z3::ite(zero < v, v, v * need(alpha));
      case Formula::kElu: return z3::ite(zero < v, v, need(alpha) * (exp(v) - one));
      case Formula::kHardswish: return v * min0(max0(v + number(3), zero), six) / six;
      case Formula::kHardsigmoid: return min0(max0(v + number(3), zero), six) / six;
      case Formula::kSigmoid: return one / (one + exp(-v));
      case Formula::kSilu: return v / (one + exp(-v));
      case Formula::kSqrt: return fp_ ? z3::sqrt(v, ctx_.fpa_rounding_mode()) : function("sqrt", v);
      case Formula::kRsqrt:
        return one / (fp_ ? z3::sqrt(v, ctx_.fpa_rounding_mode()) : function("sqrt", v));
      case Formula::kExp: return exp(v);
      case Formula::kLog: return function("log", v);
      case Formula::kErf: return function("erf", v);
      case Formula::kTanh: return function("tanh", v);
      case Formula::kGelu:
        return number(0.5) * v * (one + function("erf", v / number(std::sqrt(2.0))));
      case Formula::kGeluTanh:
        return number(0.5) * v *
               (one + function("tanh", number(std::sqrt(2.0 / M_PI)) *
                                           (v + number(0.044715) * v * v * v)));
      case Formula::kSoftplus: throw Outside{"softplus (its threshold switch)"};
      default: throw Outside{"an unknown formula"};
    }
  }

  static Expr need(const std::optional<Expr>& param) {
    if (!param) throw Outside{"a formula parameter without a value"};
    return *param;
  }

  /// NaN when either operand is NaN (torch.maximum / minimum), else `value`.
  Expr nan_or(const Expr& x, const Expr& y, const Expr& value) {
    if (!fp_) return value;
    return z3::ite(x.mk_is_nan() || y.mk_is_nan(), ctx_.fpa_nan(ctx_.fpa_sort<32>()), value);
  }

  /// An uninterpreted function: a proof holds for any, a counterexample is not trusted.
  template <typename... Args>
  Expr function(const char* name, const Args&... args) {
    functions_.insert(name);
    z3::sort s = fp_ ? ctx_.fpa_sort<32>() : ctx_.real_sort();
    z3::sort_vector domain(ctx_);
    (domain.push_back(args.get_sort()), ...);
    z3::func_decl f = ctx_.function(name, domain, s);
    return f(args...);
  }

  // ** conditions and comparison **

  /// The `where` conditions on `$` variables and on constants' elements (`value(w) == 1`);
  /// conditions on shapes, uses and constness restrict where a rule applies, not what it
  /// computes, and are left out (a proof without them holds with them). A dtype condition that
  /// excludes float32 makes the rule outside.
  void conditions(z3::solver& solver) {
    for (const Condition& c : rule_.conditions) {
      if (c.kind == Condition::Kind::kValue) {
        solver.add(element_condition(c));
        continue;
      }
      if (c.kind != Condition::Kind::kCompare) continue;
      if (c.lhs.kind == Term::Kind::kDTypeOf) {
        check_dtype_condition(c);
        continue;
      }
      if (c.lhs.kind != Term::Kind::kAttrVar) continue;
      Expr v = attr_var(c.lhs.var);
      auto num = [&](const Term& t) -> std::optional<Expr> {
        if (t.kind == Term::Kind::kNumber) return number(t.number);
        if (t.kind == Term::Kind::kAttrVar) return attr_var(t.var);
        return std::nullopt;
      };
      std::optional<Expr> holds;
      if (c.op == CmpOp::kIn && c.rhs.kind == Term::Kind::kRange && c.rhs.items.size() == 2) {
        holds = *num(c.rhs.items[0]) <= v && v <= *num(c.rhs.items[1]);
      } else if (c.op == CmpOp::kIn) {
        Expr any = ctx_.bool_val(false);
        for (const Term& item : c.rhs.items) {
          std::optional<Expr> n = num(item);
          if (!n) throw Outside{"a condition on a non-number"};
          any = any || v == *n;
        }
        holds = any;
      } else if (std::optional<Expr> r = num(c.rhs)) {
        switch (c.op) {
          case CmpOp::kEq: holds = v == *r; break;
          case CmpOp::kNe: holds = v != *r; break;
          case CmpOp::kLt: holds = v < *r; break;
          case CmpOp::kLe: holds = v <= *r; break;
          case CmpOp::kGt: holds = v > *r; break;
          case CmpOp::kGe: holds = v >= *r; break;
          case CmpOp::kIn: break;
        }
      }
      if (!holds) throw Outside{"a condition the prover does not model: " + c.text};
      solver.add(c.negated ? !*holds : *holds);
    }
  }

  /// `value(w) op rhs` for the element of `w` the terms stand for: every element satisfies it.
  /// Negated, it says that some element does not, which no single element's term can state.
  Expr element_condition(const Condition& c) {
    if (c.negated) throw Outside{"a negated condition on a constant's elements: " + c.text};
    if (c.values[0].kind != ValueRef::Kind::kVar) throw Outside{"a condition on " + c.text};
    Expr x = input(rule_.var_names[c.values[0].index]);
    auto num = [&](const Term& t) {
      if (t.tolerance > 0) throw Outside{"an element compared within a tolerance: " + c.text};
      return number(t.kind == Term::Kind::kBool ? (t.flag ? 1.0 : 0.0) : t.number);
    };
    // In float32, equality as the matcher tests it: -0 equals 0, NaN equals nothing.
    auto eq = [&](const Expr& y) { return fp_ ? z3::fp_eq(x, y) : x == y; };
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
    Expr any = ctx_.bool_val(false);
    for (const Term& item : c.rhs.items) any = any || eq(num(item));
    return any;
  }

  void check_dtype_condition(const Condition& c) {
    bool f32 = false;
    if (c.rhs.kind == Term::Kind::kDType) f32 = c.rhs.dtype == DType::kFloat32;
    for (const Term& item : c.rhs.items) f32 = f32 || item.dtype == DType::kFloat32;
    const bool admits = (c.op == CmpOp::kNe) != f32;
    if (admits == c.negated) throw Outside{"a rule for other dtypes than float32"};
  }

  /// Equal as the verifier compares: NaN matches NaN, and 0 matches -0.
  Expr same(const Expr& a, const Expr& b) {
    if (!fp_) return a == b;
    return (a.mk_is_nan() && b.mk_is_nan()) || Expr(ctx_, Z3_mk_fpa_eq(ctx_, a, b));
  }

  /// `solver.check()`, interrupted at `deadline`: unknown, with *timed_out set, when the time
  /// runs out.
  static z3::check_result check(z3::solver& solver, Deadline deadline, bool* timed_out) {
    if (std::chrono::steady_clock::now() >= deadline) {
      *timed_out = true;
      return z3::unknown;
    }
    z3::check_result result;
    {
      Watchdog watchdog(solver.ctx(), deadline);
      result = solver.check();
    }
    if (result == z3::unknown && std::chrono::steady_clock::now() >= deadline) *timed_out = true;
    return result;
  }

  /// Some input or some side's value is an infinity or NaN.
  Expr some_special(const std::vector<Expr>& lhs, const std::vector<Expr>& rhs) {
    Expr any = ctx_.bool_val(false);
    auto add = [&](const Expr& e) { any = any || e.mk_is_nan() || e.mk_is_inf(); };
    for (const auto& [name, e] : inputs_) add(e);
    for (const Expr& e : lhs) add(e);
    for (const Expr& e : rhs) add(e);
    return any;
  }

  bool special_values(z3::model& m, const std::vector<Expr>& lhs, const std::vector<Expr>& rhs) {
    if (!fp_) return false;
    auto special = [&](const Expr& e) {
      Expr v = m.eval(e, true);
      return m.eval(v.mk_is_nan() || v.mk_is_inf(), true).is_true();
    };
    for (const auto& [name, e] : inputs_) {
      if (special(e)) return true;
    }
    for (size_t i = 0; i < lhs.size(); ++i) {
      if (special(lhs[i]) || special(rhs[i])) return true;
    }
    return false;
  }

  /// A value of the model as a number: reals as decimals, floats as C would print them.
  std::string text(const Expr& v) {
    if (v.is_fpa()) {
      z3::model empty(ctx_);
      if (empty.eval(v.mk_is_nan(), true).is_true()) return "nan";
      if (empty.eval(v.mk_is_inf(), true).is_true()) {
        return empty.eval(v < number(0), true).is_true() ? "-inf" : "inf";
      }
      Expr real(ctx_, Z3_mk_fpa_to_real(ctx_, v));
      return text(empty.eval(real, true));
    }
    if (v.is_numeral()) return fmt::format("{:.9g}", v.as_double());
    return v.to_string();
  }

  z3::context ctx_;
  const Rule& rule_;
  bool fp_;
  std::set<std::string> functions_;
  std::vector<size_t> choice_;
  std::map<std::string, Expr> inputs_;
  std::map<uint32_t, Expr> nodes_, results_;
  std::vector<Expr> constraints_;
};


}  // namespace

Equality check_equality(const Rule& rule, bool float32, const std::vector<size_t>& choice,
                        Deadline deadline, bool prefer_special) {
  return RuleTerms(rule, float32, choice).equal(deadline, prefer_special);
}

}  // namespace graft::ruletest
