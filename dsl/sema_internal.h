// Sema's internal state, shared by its implementation files (not a public header):
//   sema.cpp        declarations, duplicates, opclasses, phases, the driver
//   sema_call.cpp   values and op calls: names, literals, arithmetic, callee resolution
//   sema_args.cpp   binding arguments to a schema, operand and attribute checks, inference
//   sema_rule.cpp   rules: pattern scope, replacement, benefit, unused bindings
//   sema_where.cpp  `where` conditions
//   sema_op_name.cpp  `op_name(act)`: the name of the op a pattern value matched
//   sema_test_decl.cpp  test blocks: typed graphs with shape inference, apply, expectations
#pragma once

#include <deque>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dsl/ast.h"
#include "dsl/literal.h"
#include "dsl/rule_file_set.h"
#include "engine/ir/shape.h"
#include "engine/ops/op_registry.h"
#include "engine/support/diagnostics.h"
#include "engine/support/source_manager.h"

namespace graft::dsl::detail {

/// Where an expression is checked: each allows different constructs.
enum class Mode { kPattern, kReplacement, kGraph };

/// A name in scope: a pattern parameter, a value defined by a statement, or a graph input.
struct Binding {
  const ast::Node* decl = nullptr;  // Param, AssignStmt or ParamDefStmt
  SourceRange range;                // the defining identifier
  std::string_view name;
  bool is_param = false;
  bool optional = false;  // `b?`: may be none
  bool is_const = false;  // pattern: listed in const(…); replacement: computed from constants
  std::optional<TensorType> type;  // test graphs
  int uses = 0;
};

class Scope {
 public:
  explicit Scope(Scope* parent = nullptr) : parent_(parent) {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  Binding* find(std::string_view name);
  Binding* find_local(std::string_view name);
  Binding& add(Binding binding);
  /// Every visible name, for "did you mean".
  std::vector<std::string> names() const;
  std::deque<Binding>& locals() { return bindings_; }

 private:
  std::deque<Binding> bindings_;  // deque: bindings are referenced while more are added
  Scope* parent_;
};

/// A `$name` variable of a rule.
struct AttrVar {
  SourceRange first;             // where the pattern first binds it
  std::string source;            // "'stride' of 'conv2d'", for messages
  std::optional<AttrSpec> spec;  // nullopt when bound to a scalar operand
  int bindings = 0;              // occurrences in the pattern (two or more = equality)
  int uses = 0;                  // occurrences in `where` and the replacement
};

/// What an expression produces where a tensor operand is expected.
enum class ValueKind {
  kTensor,
  kScalar,          // a number or a `$` variable
  kNone,            // `none`
  kMaybeNone,       // an optional parameter `b?`
  kTensorOrScalar,  // `b ?? 0`
  kAny,             // `_`
  kOther,           // a string, bool, list, set, …: never a tensor operand
  kError,           // already reported
};

struct ValueResult {
  ValueKind kind = ValueKind::kError;
  bool is_const = false;
  const ast::NameExpr* non_const = nullptr;  // a name that makes the value non-constant
  std::optional<TensorType> type;            // test graphs only
  std::optional<Scalar> scalar;              // literal scalars
};

/// The environment of the block being checked.
struct Env {
  Mode mode = Mode::kPattern;
  Scope* scope = nullptr;
  std::map<std::string, AttrVar, std::less<>>* attr_vars = nullptr;  // rules only
  int op_count = 0;  // ops a pattern matches (the default benefit)
  // A pattern with errors may have failed to bind `$` variables; their uses are not reported
  // again as unbound.
  bool pattern_failed = false;
  // What `where` has required so far of each value (by declaration), to catch contradictions
  // such as `rank(x) == 4, shape(x) == [N, C]`: the rank or dtype and where it was required.
  std::map<const ast::Node*, std::pair<int64_t, SourceRange>> required_ranks;
  std::map<const ast::Node*, std::pair<DType, SourceRange>> required_dtypes;
  // Dim symbols a `where` condition binds (`dim(x, -1) == D`, `shape(w) == [D]`, neither
  // negated): the replacement may use them as ints in attributes (`normalized_shape=[D]`).
  std::set<std::string, std::less<>> dim_symbols;
};

struct ArgBinding;

class Sema {
 public:
  Sema(const SourceManager& sources, DiagnosticEngine& diags, ast::Context& ctx)
      : sources_(sources), diags_(diags), ctx_(ctx), registry_(OpRegistry::get()) {}

  /// Checks everything; fills `out`. Returns false if any error was reported.
  bool run(const std::vector<ast::RuleFile*>& files, RuleFileSet& out);
  void warn_default_after_later_phases(const std::vector<ast::RuleFile*>& files,
                                       const std::vector<size_t>& unphased,
                                       const std::vector<ast::PhaseDecl*>& phases);

  // ** diagnostics **
  Diagnostic& error(SourceRange range, std::string message);
  Diagnostic& warning(SourceRange range, std::string message);
  static void note(Diagnostic& diag, SourceRange range, std::string message);
  /// True once the engine has dropped an error for being past its limit: the rest of the set
  /// is not checked (the rendering ends with "too many errors").
  bool stopped() const;
  std::string location(SourceRange range) const;

  // ** values and calls (sema_call.cpp) **
  ValueResult check_value(ast::Expr* expr, Env& env);
  ValueResult check_call(ast::CallExpr* call, Env& env);
  /// `op_name(...)` anywhere but as a replacement's attribute value: reports and marks it.
  void reject_op_name(ast::CallExpr* call);
  /// Reports unless `r` may be used as a tensor operand described by `what` ("the return value").
  bool expect_tensor(const ast::Expr* expr, const ValueResult& r, const std::string& what);
  /// Checks `$name` where a value of `spec` (nullopt: a scalar operand) is bound or used.
  void check_attr_var(const ast::AttrVarExpr* var, const std::optional<AttrSpec>& spec,
                      const std::string& source, Env& env);
  /// The AttrValue of a literal (number, string, bool, none, list of numbers), or nullopt.

  // ** rules (sema_rule.cpp) and conditions (sema_where.cpp) **
  void check_rule(ast::RuleDecl* rule, CheckedRule& out);
  void check_condition(ast::Condition* cond, Env& env);

  // ** tests (sema_test_decl.cpp) **
  void check_test(ast::TestDecl* test, CheckedTest& out);
  /// The concrete type of a test input or param, or nullopt after reporting.
  std::optional<TensorType> check_type(const ast::TypeSpec* type);
  void check_graph_body(ast::Block* body, Env& env);
  void check_expectation(ast::Condition* cond);
  /// Adds a tensor of a test graph (an input, a param or an op's result) to the test's total;
  /// reports at `range` the one that takes it past kMaxTestTensorBytes, once per test.
  void count_test_tensor(SourceRange range, const TensorType& type);

  const SourceManager& sources_;
  DiagnosticEngine& diags_;
  ast::Context& ctx_;
  const OpRegistry& registry_;
  RuleFileSet* out_ = nullptr;

  // Declarations of the whole set, by name.
  std::map<std::string, const ast::RuleDecl*, std::less<>> rules_;
  std::map<std::string, const ast::PhaseDecl*, std::less<>> phases_;
  std::map<std::string, const ast::OpClassDecl*, std::less<>> opclasses_;
  std::map<std::string, std::vector<const OpSchema*>, std::less<>> opclass_ops_;
  std::map<std::string, size_t, std::less<>> rule_index_;  // into out_->rules_
  // The tensors of the test being checked, in bytes (count_test_tensor).
  int64_t test_bytes_ = 0;
  bool test_too_large_ = false;

 private:
  ValueResult check_binary(ast::BinaryExpr* expr, Env& env);
  ValueResult check_unary(ast::UnaryExpr* expr, Env& env);
  ValueResult check_fold(ast::CallExpr* call, Env& env);
  bool bind_alternatives(const ast::CallExpr* call, const std::vector<const OpSchema*>& ops,
                         Mode mode, std::vector<ArgBinding>& bindings);
  bool check_call_operand(ast::Arg* arg, size_t index, const std::vector<const OpSchema*>& ops,
                          const std::vector<ArgBinding>& bindings, Env& env, ValueResult& value,
                          std::vector<ValueResult>& variadic_items);
  bool check_call_attr(const ast::Arg* arg, size_t index, const std::vector<const OpSchema*>& ops,
                       const std::vector<ArgBinding>& bindings, Env& env);
  std::vector<const OpSchema*> resolve_callee(const ast::CallExpr* call, Env& env);
  const OpSchema* arithmetic_op(const char* name, SourceRange range);
  void check_attr_arg(const ast::Arg* arg, const OpSchema& schema, const AttrSpec& spec, Env& env);
  /// `spec=op_name(act)` of a replacement call: `act` must be a pattern value matched by op
  /// alternatives or an op class, each of whose names `spec` accepts, and whose attributes the
  /// pattern matches (the name alone carries nothing else to the replacement).
  void check_op_name_attr(ast::CallExpr* call, const OpSchema& schema, const AttrSpec& spec,
                          Env& env);
  /// A replacement attribute that is a dim symbol or a list with one (`[D]`, `[1, D]`): true
  /// when `value` is such an expression (and any problem was reported), false otherwise.
  bool check_dim_symbol_attr(const ast::Expr* value, const AttrSpec& spec, const std::string& desc,
                             Env& env);
  /// A list attribute with `$` or `_` items (`stride=[$s, $s]`, `shape=[$n, _, 4]`): true when
  /// `value` is such a list (and any problem was reported), false otherwise. Items are numbers,
  /// `$` variables holding one item and, in a pattern, `_`; in a replacement, int lists only.
  bool check_list_with_vars(const ast::Expr* value, const AttrSpec& spec, const std::string& desc,
                            Env& env);
  /// Runs the schema's shape function when every input type is known; reports at `range`.
  std::optional<TensorType> infer(SourceRange range, const ast::BoundCall& bound,
                                  const std::vector<ValueResult>& operands,
                                  const std::vector<ValueResult>& variadic_items);
};

/// A problem binding arguments to one schema; reported by the caller, which knows whether the
/// schema is one of several alternatives.
struct BindError {
  SourceRange range;
  std::string message;
  SourceRange note_range;
  std::string note;
};

/// The call's arguments bound to one schema, Python-style: positional arguments follow the
/// signature order (operands and attributes interleave), keywords match parameter names.
struct ArgBinding {
  std::vector<const ast::Arg*> operands;
  std::vector<const ast::Arg*> attrs;
  std::vector<BindError> errors;

  /// Whether `arg` binds to an operand, and which.
  std::pair<bool, size_t> slot_of(const ast::Arg* arg) const {
    for (size_t i = 0; i < operands.size(); ++i) {
      if (operands[i] == arg) return {true, i};
    }
    for (size_t i = 0; i < attrs.size(); ++i) {
      if (attrs[i] == arg) return {false, i};
    }
    return {false, SIZE_MAX};
  }
};

/// Whether `e` is a call of the built-in `op_name` (the registry has no op of that name).
bool is_op_name_call(const ast::Expr* e, const OpRegistry& registry);

/// Binds the call's arguments to `schema`; problems are collected in `errors`.
ArgBinding bind_args(const ast::CallExpr& call, const OpSchema& schema, Mode mode);
/// Checks a value against the operand slot it binds to; returns false after reporting.
bool check_operand_slot(Sema& sema, const ast::Expr* expr, const ValueResult& value,
                        const OpSchema& schema, const OperandSpec& spec, Mode mode);
/// Reports a negative tolerance.
void check_tolerance(Sema& sema, const ast::ToleranceExpr* tolerance);
/// "pattern", "replacement" or "test graph".
const char* mode_name(Mode mode);
/// "a string", "a list", … for messages about a misplaced expression.
std::string describe(const ast::Expr& expr);

/// Adds `target` to `scope`, reporting a redefinition of a visible name.
void define(Sema& sema, Scope& scope, const ast::Ident* target, const ast::Node* decl,
            const ValueResult& value);
/// Every dtype spelling the language accepts ("f32", "float32", …), for "did you mean".
std::vector<std::string> dtype_spellings();

/// "int[2]", "float", "Scalar", … as the schema declares it.
std::string spec_type_name(const AttrSpec& spec);
/// "'stride' of 'conv2d'"
std::string param_desc(const std::string& param, const OpSchema& schema);

}  // namespace graft::dsl::detail
