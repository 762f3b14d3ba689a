// The terms of one prover query (rule_equality.h): each side of a rule as a tensor of Z3 terms
// (prover_tensors.h). A rule of elementwise ops only is checked per element: every input is
// 0-d, since such ops compute each output element from one element of each input. A rule with
// layout or other ops is checked on tensors whose shapes are terms: its output shapes must be
// equal, and its elements at any index in range. Over the reals the piecewise-linear formulas
// are exact and the transcendental ones (exp, erf, tanh, …) uninterpreted functions; in float32
// each op rounds to nearest and NaN propagates as in the reference kernels
// (eval/elementwise_formulas.h). Ops without a formula (softmax, matmul, …) are uninterpreted
// functions of their operands' elements and attributes.
#pragma once

#include <z3++.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ruletest/prover_tensors.h"
#include "ruletest/rule_equality.h"

namespace graft::ruletest {

/// An op's attribute values as the terms need them, from a pattern's checks or a
/// replacement's values.
struct AttrTerms {
  std::vector<std::optional<z3::expr>> numbers;  // numeric attributes as element-sort numbers
  std::function<std::optional<AttrValue>(size_t)> literal;  // the literal value, if any
  std::function<z3::expr(size_t)> integer;                  // an int attribute as an Int
  /// An int list attribute item by item, when its length is known.
  std::function<std::optional<std::vector<z3::expr>>(size_t)> int_list;
  std::function<z3::expr(size_t)> opaque_list;  // a list attribute as one term
};

class RuleTerms {
 public:
  /// `choice`: the alternative each PatNode takes (`(contiguous | clone)(x)`).
  RuleTerms(const Rule& rule, bool float32, std::vector<size_t> choice,
            const ProofAssumptions& assume);

  /// Whether the sides are equal for every input, asking the solver until `deadline`.
  Equality equal(Deadline deadline, bool prefer_special);

 private:
  // ** terms (rule_terms.cpp) **
  z3::expr number(double v);
  z3::expr input(const std::string& name);
  z3::expr attribute(const std::string& name);
  z3::expr attr_var(uint32_t var);
  z3::expr int_var(uint32_t var);
  z3::expr symbol(uint32_t id);  // a dim symbol of the conditions (`N`), as an Int
  Tensor input_tensor(uint32_t var);
  Tensor node_value(uint32_t index);
  std::optional<Tensor> pattern_operand(const PatValue& v);
  std::optional<z3::expr> pattern_attr(const AttrCheck& c, const OpSchema& op,
                                       std::vector<bool>* fixed);
  std::optional<z3::expr> free_attr(const OpSchema& op, size_t i);
  std::optional<z3::expr> attr_number(const AttrValue& v);
  AttrTerms pattern_attrs(const PatAlt& alt);
  AttrTerms replacement_attrs(const ReplOp& op);
  std::optional<std::vector<z3::expr>> list_choice(uint32_t var);
  Tensor repl_value(const ReplValue& v);
  Tensor repl_op(uint32_t index);
  Tensor value_of(const ValueRef& v);

  // ** ops (rule_ops.cpp) **
  Tensor apply(const OpSchema& op, const std::vector<std::optional<Tensor>>& operands,
               const AttrTerms& attrs);
  Tensor elementwise(const std::vector<Tensor>& operands,
                     const std::function<z3::expr(const std::vector<z3::expr>&)>& formula);
  Tensor layout(const OpSchema& op, const Tensor& in, const AttrTerms& attrs);
  Tensor linear(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b);
  Tensor other_op(const OpSchema& op, const std::vector<std::optional<Tensor>>& operands,
                  const AttrTerms& attrs);
  z3::expr formula(const OpSchema& op, const std::vector<z3::expr>& x, const AttrTerms& attrs);
  z3::expr normalized_dim(const z3::expr& dim, size_t rank);
  z3::expr truth(const z3::expr& v);
  z3::expr boolean(const z3::expr& b);
  void require(const z3::expr& valid);

  // ** formulas (rule_formulas.cpp) **
  z3::expr binary(Formula f, const z3::expr& x, const z3::expr& y,
                  const std::optional<z3::expr>& alpha);
  z3::expr rounded_quotient(const z3::expr& x, const z3::expr& y, Z3_ast (*rounding)(Z3_context),
                            const char* name);
  z3::expr unary(Formula f, const z3::expr& v, const std::optional<z3::expr>& alpha,
                 const std::optional<z3::expr>& beta);
  z3::expr nan_or(const z3::expr& x, const z3::expr& y, const z3::expr& value);
  z3::expr function(const char* name, const std::vector<z3::expr>& args);

  // ** conditions and comparison (rule_conditions.cpp) **
  void conditions(z3::solver& solver);
  std::optional<z3::expr> compare_condition(const Condition& c);
  z3::expr element_condition(const Condition& c);
  void check_dtype_condition(const Condition& c);
  z3::expr same(const z3::expr& a, const z3::expr& b);
  z3::expr dim_term(const Term& t);
  std::optional<z3::expr> size_term(const Term& t);

  // ** the query (rule_equality.cpp) **
  z3::expr some_special(const std::vector<z3::expr>& values);
  bool special_values(z3::model& m, const std::vector<z3::expr>& values);
  std::string text(const z3::expr& v);

  z3::context ctx_;
  const Rule& rule_;
  bool fp_;
  bool tensors_;  // false: every input is 0-d (a rule of elementwise ops)
  std::vector<size_t> choice_;
  ProofAssumptions assume_;
  TensorAlgebra algebra_;
  std::set<std::string> functions_;
  std::map<std::string, z3::expr> inputs_;  // numbers shown in a counterexample
  std::map<std::string, Tensor> tensor_inputs_;
  std::map<uint32_t, z3::expr> int_vars_;   // `$` variables used as int attributes
  std::map<uint32_t, z3::expr> symbols_;    // dim symbols of the conditions
  std::set<std::string> bool_inputs_;       // inputs a condition makes bool
  std::map<uint32_t, Tensor> nodes_, results_;
  std::set<std::string> without_formula_[2];  // ops of other_op, in the pattern and replacement
  std::vector<z3::expr> constraints_;       // what the inputs satisfy
  std::vector<z3::expr> replacement_valid_; // what the replacement's ops need of them
  bool in_replacement_ = false;
  int fresh_ = 0;
};

}  // namespace graft::ruletest
