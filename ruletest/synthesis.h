// The synthesiser's state for one rule and variant (see rule_synthesis.h for what it does):
// class Synth, whose members are defined by job in rule_synthesis.cpp (the walk over the
// pattern and the statements it writes), synthesis_where.cpp (reading the rule's `where`
// conditions and choosing `$var` values) and synthesis_roles.cpp (operand shapes from the
// registry's operand roles, attribute values). Internal to graft::rule_testing.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dsl/rule_file_set.h"
#include "engine/ir/shape.h"
#include "engine/ops/op_schema.h"
#include "ruletest/rule_synthesis.h"

namespace graft::ruletest::synthesis {

namespace ast = dsl::ast;

/// A value of the test graph: a tensor (a graph input, param or statement), a scalar literal
/// or None.
struct SynthValue {
  enum class Kind { kTensor, kScalar, kNone };
  Kind kind = Kind::kNone;
  std::string text;  // the value's name, a scalar's spelling, or "none"
  TensorType type;   // tensors
  Scalar scalar;     // scalars
};

std::string float_text(double d);
std::string shape_text(const Shape& shape);
std::string attr_text(const AttrValue& v);
/// A literal's value, looking through a tolerance (`1e-5 ~ 1e-7` is 1e-5 here).
std::optional<AttrValue> literal_value(const ast::Expr* e);
std::optional<double> numeric(const AttrValue& v);

/// The dtype of variant `variant`'s inputs: float32 but in every 8th from the 3rd (float16),
/// the 5th (bfloat16) and the 7th (int64).
inline DType variant_dtype(int variant) {
  switch (variant % 8) {
    case 3: return DType::kFloat16;
    case 5: return DType::kBFloat16;
    case 7: return DType::kInt64;
    default: return DType::kFloat32;
  }
}

class Synth {
 public:
  Synth(const dsl::CheckedRule& rule, int variant, ShapeSize size)
      : rule_(*rule.decl), variant_(variant),
        shape_choice_(size == ShapeSize::kVariant ? (variant / 2) % 2 : static_cast<int>(size) + 1),
        extra_batch_dim_((variant / 4) % 2 == 1), input_dtype_(variant_dtype(variant)),
        generic_rank_(variant % 8 == 1 ? 3 : variant % 8 == 6 ? 2 : 4) {}

  std::optional<SynthesizedGraph> run(std::string* why);

 private:
  // ** choices **

  /// A choice among `n` options: the first in variant 0, then varying with the variant and the
  /// choice point, so that variants differ in different places.
  int choose(int n);

  /// The value a literal with a tolerance (`0.5 ~ 0.1`) takes in the graph: the literal in
  /// variant 0, else at times a value within the tolerance but off the literal (0.41, 0.59),
  /// which the pattern matches as well and the rule must be right for.
  double within_tolerance(const ast::ToleranceExpr& t);

  void fail(std::string message);

  std::string fresh(const std::string& base);

  // ** where **

  /// Reads the conditions the synthesiser can help satisfy: const(...), param(...),
  /// buffer(...) and value(...) make parameters constants (buffers, filled with a value that
  /// satisfies the comparison), rank/shape/dim give shapes, conditions on `$v` filter its
  /// values, and `not output(y)` asks for a user of the returned values. The rest is left to
  /// the matcher.
  void read_where();

  void read_condition(const ast::Condition& c);

  /// A value every element of a constant may take to satisfy `value(w) op rhs`.
  static std::optional<double> fill_satisfying(const ast::Condition& c);

  /// Whether `value` of `$var` satisfies condition `c` (conditions on other, unbound variables
  /// and on non-numbers hold: the matcher has the last word).
  bool holds(const ast::Condition& c, const AttrValue& value) const;

  /// The value of `$var`: bound already, or chosen among `candidates` and the literals the
  /// rule's conditions on it mention, keeping those that satisfy every condition.
  std::optional<AttrValue> choose_var(const std::string& var, std::vector<AttrValue> candidates);

  // ** shapes **

  Shape default_shape(int rank, const std::string& name) const;

  /// Sets the sizes the rule's `dim`/`shape` conditions fix for `name` (negative dims count
  /// from the end; dims past `shape`'s rank are left alone).
  void apply_dim_hints(const std::string& name, Shape& shape) const;

  int rank_of(const std::string& name, int fallback) const;

  // ** values **

  /// Whether operand expression `e` is a parameter not yet given a type (or a `_` in a tensor
  /// position): its type comes from its role in the op that uses it.
  bool is_pending(const ast::Expr* e) const;

  SynthValue define_param(const std::string& name, const TensorType& type, bool positive);

  std::optional<SynthValue> eval(const ast::Expr* e, std::string_view name);

  std::optional<SynthValue> eval_call(const ast::CallExpr& call, std::string_view name);

  /// The type of the pending operand `index` of `schema`, from its role (OpSchema::roles);
  /// `vals` holds the operands known so far and `attrs` the attribute values (empty before
  /// they are chosen).
  std::optional<TensorType> role_type(const OpSchema& s, size_t index, const std::string& name,
                                      const std::vector<std::optional<SynthValue>>& vals,
                                      const std::vector<AttrValue>& attrs, bool* positive);

  /// The type of an operand whose role derives it from the op's input `x` (and weight `w`).
  std::optional<TensorType> input_role_type(const OpSchema& s, OperandRole role,
                                            const std::string& name, const TensorType* x,
                                            const TensorType* w,
                                            const std::vector<AttrValue>& attrs);

  /// The value of attribute `index` of `s` as the pattern states it (`emit` is set when the
  /// graph must spell it out), or its default when the pattern does not mention it.
  std::optional<AttrValue> choose_attr(const OpSchema& s, size_t index, const ast::Arg* arg,
                                       const TensorType* x, bool* emit);

  /// The value of a list attribute written with `$` or `_` items (`stride=[$s, $s]`).
  std::optional<AttrValue> list_with_vars(const ast::ListExpr& list, const AttrSpec& spec,
                                          const TensorType* x);

  std::optional<TensorType> infer(const OpSchema& s,
                                  const std::vector<std::optional<SynthValue>>& vals,
                                  const std::vector<AttrValue>& attrs);

  /// Writes `s(operands…, attrs…)` as a statement named `name` (or a fresh name) after giving
  /// every pending operand a type; returns the value.
  /// `operator_sugar`: the op was written `a / b` or `-a`, which match the op's default
  /// attributes only (docs/rules.md §3), so no other values are tried.
  std::optional<SynthValue> emit_op(const OpSchema& s, std::vector<const ast::Expr*> operands,
                                    std::vector<const ast::Arg*> attrs, std::string_view name,
                                    bool operator_sugar = false);

  const ast::RuleDecl& rule_;
  int variant_;
  int shape_choice_;  // 0 and 1: the variants' shapes; 2 to 4: ShapeSize's smaller ones
  // Variants beyond the first also vary what a rule may silently assume: a leading batch dim
  // on matrix and sequence inputs (linear of a 3-d input), and the dtype of graph inputs and
  // constants: int64 (`x * 1.0 → x` changes an integer tensor's dtype), float16 and bfloat16
  // (a rule right only at float32's precision, or only for float32). Ops that reject them
  // leave the variant unbuilt.
  bool extra_batch_dim_;
  DType input_dtype_;
  int points_ = 0;
  std::string error_;

  std::set<std::string> params_, const_, absent_, used_names_;
  std::set<std::string> buffers_;             // `buffer(w)`: a constant that is a buffer
  std::map<std::string, double> fill_hint_;  // `value(w) == 0`: a constant filled with this
  std::map<std::string, int> rank_hint_;
  std::map<std::string, std::map<int, int64_t>> dim_hint_;
  std::map<std::string, DType> dtype_hint_;  // `dtype(m) == f16`: an input of that dtype
  std::map<std::string, std::vector<const ast::Condition*>> var_conditions_;
  std::map<std::string, AttrValue> vars_;
  bool wrap_outputs_ = false;
  int rank_override_ = -1;  // the rank of the operand being defined, when an attribute fixes it
  // The rank of an operand whose role fixes none (elementwise ops, reductions, softmax): 4,
  // but 3 and 2 in two of every eight variants, so that a rule right only for 4-d inputs
  // (`mean(x, [-1]) → mean(x, [3])`) fails.
  int generic_rank_;

  std::map<std::string, SynthValue> values_;
  std::vector<std::string> inputs_;
  std::vector<std::string> stmts_;
};

}  // namespace graft::ruletest::synthesis
