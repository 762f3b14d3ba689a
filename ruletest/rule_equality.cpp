// One prover query (rule_equality.h): the sides' terms (rule_terms.h) handed to Z3 with the
// question whether some input in range makes them differ, within the rule's time.
#include "ruletest/rule_equality.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ruletest/rule_terms.h"

namespace graft::ruletest {
namespace {

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

/// `solver.check()`, interrupted at `deadline`: unknown, with *timed_out set, when the time
/// runs out.
z3::check_result check(z3::solver& solver, Deadline deadline, bool* timed_out) {
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

}  // namespace

Equality RuleTerms::equal(Deadline deadline, bool prefer_special) {
  std::vector<Tensor> lhs, rhs;
  for (uint32_t root : rule_.roots) lhs.push_back(node_value(root));
  in_replacement_ = true;
  for (const ReplValue& r : rule_.results) rhs.push_back(repl_value(r));
  in_replacement_ = false;
  if (without_formula_[0] != without_formula_[1]) {
    // An uninterpreted op on one side only: nothing to prove equal to.
    std::vector<std::string> only;
    for (int side : {0, 1}) {
      for (const std::string& op : without_formula_[side]) {
        if (without_formula_[1 - side].count(op) == 0) only.push_back("'" + op + "'");
      }
    }
    throw Outside{fmt::format("{} on one side only", fmt::join(only, ", "))};
  }
  // The sides differ when the replacement cannot run where the pattern matched, when their
  // shapes differ, or at some element in range.
  z3::expr differ = ctx_.bool_val(false);
  std::vector<z3::expr> values;
  std::vector<std::pair<std::string, z3::expr>> where;
  for (size_t k = 0; k < lhs.size(); ++k) {
    const Tensor& p = lhs[k];
    const Tensor& r = rhs[k];
    Tensor indexed = p;
    if (!(p.dims && r.dims && p.dims->size() == r.dims->size())) indexed.dims.reset();
    if (!indexed.dims && !indexed.shape) indexed.shape = algebra_.shape_term(p);
    z3::expr in_range = ctx_.bool_val(true);
    const std::string name = lhs.size() == 1 ? "out" : fmt::format("out{}", k);
    differ = differ || !algebra_.same_shape(p, r);
    if (assume_.shapes_only) continue;
    Index i = algebra_.fresh_index(indexed, name, &in_range);
    values.push_back(p.at(i));
    values.push_back(r.at(i));
    differ = differ || (in_range && !same(values[values.size() - 2], values.back()));
    for (size_t d = 0; d < i.tuple.size(); ++d) where.emplace_back(fmt::format("{}[{}]", name, d), i.tuple[d]);
    if (i.flat && tensors_) where.emplace_back(name + " offset", *i.flat);
  }
  for (const z3::expr& v : replacement_valid_) differ = differ || !v;
  z3::solver solver(ctx_);
  conditions(solver);
  for (const z3::expr& c : constraints_) solver.add(c);  // after the terms, which add some
  for (const z3::expr& a : algebra_.axioms()) solver.add(a);
  solver.add(differ);
  if (algebra_.abstract()) functions_.insert("shape functions");
  Equality out;
  out.functions = functions_;
  z3::check_result result = check(solver, deadline, &out.timed_out);
  if (result != z3::sat) {
    if (result == z3::unsat) out.equal = true;
    return out;
  }
  out.equal = false;
  z3::model m = solver.get_model();
  out.counterexample_special = special_values(m, values);
  if (fp_ && prefer_special && !out.counterexample_special && functions_.empty()) {
    // A rounding difference may hide one at inf or NaN, which is the one worth reporting
    // (with uninterpreted functions, neither proves anything). A fresh solver, as Z3 solves
    // a pushed scope with a slower, incremental strategy.
    z3::solver special(ctx_);
    for (const z3::expr& a : solver.assertions()) special.add(a);
    special.add(some_special(values));
    bool ignored = false;
    if (check(special, deadline, &ignored) == z3::sat) {
      m = special.get_model();
      out.counterexample_special = true;
    }
  }
  std::vector<std::string> inputs;
  for (const auto& [name, e] : inputs_) inputs.push_back(name + " = " + text(m.eval(e, true)));
  for (const auto& [name, t] : tensor_inputs_) {
    if (!t.dims) continue;
    for (size_t d = 0; d < t.dims->size(); ++d) {
      inputs.push_back(fmt::format("{}.size({}) = {}", name, d, text(m.eval((*t.dims)[d], true))));
    }
  }
  for (const auto& [name, e] : where) inputs.push_back(name + " = " + text(m.eval(e, true)));
  std::string shown;
  for (size_t k = 0; k < values.size(); k += 2) {
    shown += fmt::format("{}pattern {}, replacement {}", k > 0 ? "; " : "",
                         text(m.eval(values[k], true)), text(m.eval(values[k + 1], true)));
  }
  out.counterexample = fmt::format("{}: {}", fmt::join(inputs, ", "), shown);
  return out;
}

/// Some input or some side's value is an infinity or NaN.
z3::expr RuleTerms::some_special(const std::vector<z3::expr>& values) {
  z3::expr any = ctx_.bool_val(false);
  auto add = [&](const z3::expr& e) { any = any || e.mk_is_nan() || e.mk_is_inf(); };
  for (const auto& [name, e] : inputs_) add(e);
  for (const z3::expr& e : values) add(e);
  return any;
}

bool RuleTerms::special_values(z3::model& m, const std::vector<z3::expr>& values) {
  if (!fp_) return false;
  auto special = [&](const z3::expr& e) {
    z3::expr v = m.eval(e, true);
    return m.eval(v.mk_is_nan() || v.mk_is_inf(), true).is_true();
  };
  for (const auto& [name, e] : inputs_) {
    if (special(e)) return true;
  }
  for (const z3::expr& e : values) {
    if (special(e)) return true;
  }
  return false;
}

/// A value of the model as a number: reals as decimals, floats as C would print them.
std::string RuleTerms::text(const z3::expr& v) {
  if (v.is_fpa()) {
    z3::model empty(ctx_);
    if (empty.eval(v.mk_is_nan(), true).is_true()) return "nan";
    if (empty.eval(v.mk_is_inf(), true).is_true()) {
      return empty.eval(v < number(0), true).is_true() ? "-inf" : "inf";
    }
    z3::expr real(ctx_, Z3_mk_fpa_to_real(ctx_, v));
    return text(empty.eval(real, true));
  }
  if (v.is_numeral()) return fmt::format("{:.9g}", v.as_double());
  return v.to_string();
}

bool is_list_set(const Condition& c) {
  if (c.kind != Condition::Kind::kCompare || c.negated || c.op != CmpOp::kIn ||
      c.lhs.kind != Term::Kind::kAttrVar || c.rhs.kind != Term::Kind::kSet || c.rhs.items.empty()) {
    return false;
  }
  return std::all_of(c.rhs.items.begin(), c.rhs.items.end(),
                     [](const Term& t) { return t.kind == Term::Kind::kList; });
}

const Term* list_set(const Rule& rule, uint32_t var) {
  for (const Condition& c : rule.conditions) {
    if (is_list_set(c) && c.lhs.var == var) return &c.rhs;
  }
  return nullptr;
}

int64_t whole_number(double v) {
  std::optional<int64_t> i = exact_int64(v);
  if (!i) throw Outside{fmt::format("{:g} is not a whole number the prover models", v)};
  return *i;
}

Equality check_equality(const Rule& rule, bool float32, const std::vector<size_t>& choice,
                        const ProofAssumptions& assume, Deadline deadline, bool prefer_special) {
  return RuleTerms(rule, float32, choice, assume).equal(deadline, prefer_special);
}

}  // namespace graft::ruletest
