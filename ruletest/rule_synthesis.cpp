// Synthesis of test graphs from rule patterns. One Synth walks one rule's pattern once per
// variant, in the order the matcher would bind it (a call's sub-calls first, then its first
// operand, its attributes, its other operands), and writes each op as a statement of a test
// graph. A pattern parameter gets its type where it is first used, from the role it plays
// there: conv2d's weight is (O, C/groups, 3, 3) for the input's C, batch_norm's running_var is
// a positive (C) vector, an elementwise operand takes the other operand's shape (or its
// trailing dims when the rule says rank(b) == 1). Attribute variables take values from a small
// per-attribute table (stride 1 or 2, padding 0 or 1, groups 1, 2 or depthwise, eps 1e-5 or
// 1e-3, …), filtered by the rule's `where` conditions on them.
//
// It is deliberately a heuristic: the matcher is the judge. A graph whose shapes an op rejects
// is reported here; one the rule does not match is found by the verifier, which asks the
// matcher (--explain) why.
#include "ruletest/rule_synthesis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "dsl/literal.h"
#include "engine/ir/shape.h"
#include "engine/ops/op_schema.h"

namespace graft::ruletest {
namespace {

namespace ast = dsl::ast;

struct SynthValue {
  enum class Kind { kTensor, kScalar, kNone };
  Kind kind = Kind::kNone;
  std::string text;  // the value's name, a scalar's spelling, or "none"
  TensorType type;   // tensors
  Scalar scalar;     // scalars
};

std::string float_text(double d) {
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a float
  return s;
}

std::string shape_text(const Shape& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::string attr_text(const AttrValue& v) {
  struct Printer {
    std::string operator()(std::monostate) const { return "none"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return float_text(d); }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(const std::vector<int64_t>& l) const { return shape_text(l); }
    std::string operator()(const std::vector<double>& l) const {
      std::vector<std::string> items;
      for (double d : l) items.push_back(float_text(d));
      return fmt::format("[{}]", fmt::join(items, ", "));
    }
  };
  return std::visit(Printer{}, v);
}

/// A literal's value, looking through a tolerance (`1e-5 ~ 1e-7` is 1e-5 here).
std::optional<AttrValue> literal_value(const ast::Expr* e) {
  if (e->kind == ast::NodeKind::kTolerance) e = static_cast<const ast::ToleranceExpr*>(e)->value;
  return dsl::literal_value(e);
}

std::optional<double> numeric(const AttrValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

/// Calls every function of `visit` on each call of an expression tree.
template <typename F>
void for_each_call(const ast::Expr* e, F&& visit) {
  if (e == nullptr) return;
  if (const auto* call = ast::dyn_cast<ast::CallExpr>(e)) {
    visit(*call);
    for (const ast::Arg* a : call->args) for_each_call(a->value, visit);
  } else if (const auto* b = ast::dyn_cast<ast::BinaryExpr>(e)) {
    for_each_call(b->lhs, visit);
    for_each_call(b->rhs, visit);
  } else if (const auto* u = ast::dyn_cast<ast::UnaryExpr>(e)) {
    for_each_call(u->operand, visit);
  } else if (const auto* l = ast::dyn_cast<ast::ListExpr>(e)) {
    for (const ast::Expr* item : l->items) for_each_call(item, visit);
  }
}

class Synth {
 public:
  Synth(const dsl::CheckedRule& rule, int variant)
      : rule_(*rule.decl), variant_(variant), shape_choice_((variant / 2) % 2) {}

  std::optional<SynthesizedGraph> run(std::string* why) {
    read_where();
    for (const ast::Param* p : rule_.pattern->params) {
      used_names_.insert(std::string(p->name->text));
      params_.insert(std::string(p->name->text));
      // Optional parameters: present in the first variant, then alternately absent.
      if (p->optional && choose(2) == 1) absent_.insert(std::string(p->name->text));
    }
    for (const ast::Stmt* s : rule_.pattern->body->stmts) {
      if (const auto* a = ast::dyn_cast<ast::AssignStmt>(s)) {
        used_names_.insert(std::string(a->target->text));
      }
    }
    std::vector<std::string> returns;
    for (const ast::Expr* e : rule_.pattern->body->ret->values) {
      std::optional<SynthValue> v = eval(e, "");
      if (!v) break;
      if (v->kind != SynthValue::Kind::kTensor) {
        fail("the pattern returns a value that is not a tensor");
        break;
      }
      returns.push_back(v->text);
    }
    if (!error_.empty()) {
      *why = error_;
      return std::nullopt;
    }
    SynthesizedGraph out;
    out.anchor = returns.front();
    if (wrap_outputs_) {
      // `where not output(y)`: the returned values must feed something.
      for (std::string& r : returns) {
        std::string name = fresh("out");
        stmts_.push_back(fmt::format("{} = relu({})", name, r));
        r = name;
      }
    }
    out.text = fmt::format("graph({}) {{\n", fmt::join(inputs_, ", "));
    for (const std::string& s : stmts_) out.text += "  " + s + "\n";
    out.text += fmt::format("  return {}\n}}", fmt::join(returns, ", "));
    return out;
  }

 private:
  // ** choices **

  /// A choice among `n` options: the first in variant 0, then varying with the variant and the
  /// choice point, so that variants differ in different places.
  int choose(int n) {
    if (n <= 1) return 0;
    int point = points_++;
    return variant_ == 0 ? 0 : (variant_ + point) % n;
  }

  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

  std::string fresh(const std::string& base) {
    for (int i = 1;; ++i) {
      std::string name = fmt::format("{}{}", base, i);
      if (used_names_.insert(name).second) return name;
    }
  }

  // ** where **

  /// Reads the conditions the synthesiser can help satisfy: const(...) makes parameters
  /// constants, rank/shape/dim give shapes, conditions on `$v` filter its values, and
  /// `not output(y)` asks for a user of the returned values. The rest is left to the matcher.
  void read_where() {
    for (const ast::Node* clause : rule_.clauses) {
      const auto* where = ast::dyn_cast<ast::WhereClause>(clause);
      if (where == nullptr) continue;
      for (const ast::Condition* c : where->conditions) read_condition(*c);
    }
  }

  void read_condition(const ast::Condition& c) {
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
    if (pred == "const") {
      for (size_t i = 0; i < call->args.size(); ++i) const_.insert(arg_name(i));
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
    } else if (pred == "dim" && c.op == ast::CmpOp::kEq && rhs_number != nullptr &&
               call->args.size() == 2) {
      if (const auto* idx = ast::dyn_cast<ast::NumberExpr>(call->args[1]->value)) {
        dim_hint_[arg_name(0)][static_cast<int>(idx->int_value)] = rhs_number->int_value;
      }
    }
  }

  /// Whether `value` of `$var` satisfies condition `c` (conditions on other, unbound variables
  /// and on non-numbers hold: the matcher has the last word).
  bool holds(const ast::Condition& c, const AttrValue& value) const {
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
  std::optional<AttrValue> choose_var(const std::string& var, std::vector<AttrValue> candidates) {
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

  // ** shapes **

  Shape default_shape(int rank, const std::string& name) const {
    static const Shape kFirst = {2, 4, 6, 6, 5};
    static const Shape kSecond = {3, 8, 5, 7, 4};
    const Shape& base = shape_choice_ == 0 ? kFirst : kSecond;
    rank = std::clamp(rank, 0, static_cast<int>(base.size()));
    Shape shape(base.begin(), base.begin() + rank);
    if (auto it = dim_hint_.find(name); it != dim_hint_.end()) {
      for (auto [i, size] : it->second) {
        int idx = i < 0 ? i + rank : i;
        if (idx >= 0 && idx < rank) shape[idx] = size;
      }
    }
    return shape;
  }

  int rank_of(const std::string& name, int fallback) const {
    if (rank_override_ >= 0) return rank_override_;
    auto it = rank_hint_.find(name);
    return it == rank_hint_.end() ? fallback : it->second;
  }

  // ** values **

  /// Whether operand expression `e` is a parameter not yet given a type (or a `_` in a tensor
  /// position): its type comes from its role in the op that uses it.
  bool is_pending(const ast::Expr* e) const {
    if (e == nullptr) return false;
    if (e->kind == ast::NodeKind::kWildcard) return true;
    const auto* n = ast::dyn_cast<ast::NameExpr>(e);
    if (n == nullptr || n->decl == nullptr || n->decl->kind != ast::NodeKind::kParam) return false;
    std::string name(n->name);
    return !values_.count(name) && !absent_.count(name);
  }

  SynthValue define_param(const std::string& name, const TensorType& type, bool positive) {
    SynthValue v;
    v.kind = SynthValue::Kind::kTensor;
    v.text = name;
    v.type = type;
    if (const_.count(name)) {
      stmts_.push_back(fmt::format("{} = param f32{}{}", name, shape_text(type.shape),
                                   positive ? " positive" : ""));
    } else {
      inputs_.push_back(fmt::format("{}: f32{}", name, shape_text(type.shape)));
    }
    values_[name] = v;
    return v;
  }

  std::optional<SynthValue> eval(const ast::Expr* e, std::string_view name) {
    if (!error_.empty()) return std::nullopt;
    switch (e->kind) {
      case ast::NodeKind::kName: {
        const auto* n = static_cast<const ast::NameExpr*>(e);
        std::string key(n->name);
        if (auto it = values_.find(key); it != values_.end()) return it->second;
        if (absent_.count(key)) return SynthValue{SynthValue::Kind::kNone, "none", {}, {}};
        if (const auto* assign = ast::dyn_cast<ast::AssignStmt>(n->decl)) {
          std::optional<SynthValue> v = eval(assign->value, assign->target->text);
          if (v) values_[key] = *v;
          return v;
        }
        // A parameter in no operand role (returned as it is): a default tensor.
        return define_param(key, TensorType{DType::kFloat32, default_shape(rank_of(key, 4), key)},
                            false);
      }
      case ast::NodeKind::kCall:
        return eval_call(static_cast<const ast::CallExpr&>(*e), name);
      case ast::NodeKind::kBinary: {
        const auto* b = static_cast<const ast::BinaryExpr*>(e);
        if (b->schema == nullptr) {
          fail("a '?" "?' in a pattern");
          return std::nullopt;
        }
        return emit_op(*b->schema, {b->lhs, b->rhs}, {}, name, /*operator_sugar=*/true);
      }
      case ast::NodeKind::kUnary: {
        const auto* u = static_cast<const ast::UnaryExpr*>(e);
        return emit_op(*u->schema, {u->operand}, {}, name, /*operator_sugar=*/true);
      }
      case ast::NodeKind::kNumber:
      case ast::NodeKind::kTolerance: {
        const auto* n = e->kind == ast::NodeKind::kNumber
                            ? static_cast<const ast::NumberExpr*>(e)
                            : static_cast<const ast::ToleranceExpr*>(e)->value;
        return SynthValue{SynthValue::Kind::kScalar, std::string(n->spelling), {},
                          Scalar{n->float_value, n->is_int}};
      }
      case ast::NodeKind::kAttrVar: {
        std::string var(static_cast<const ast::AttrVarExpr*>(e)->name);
        std::optional<AttrValue> v = choose_var(var, {AttrValue{0.5}, AttrValue{2.0}});
        if (!v) return std::nullopt;
        std::optional<double> d = numeric(*v);
        if (!d) {
          fail(fmt::format("${} is a scalar operand but is bound to {}", var, attr_text(*v)));
          return std::nullopt;
        }
        return SynthValue{SynthValue::Kind::kScalar, float_text(*d), {}, Scalar{*d, false}};
      }
      case ast::NodeKind::kNone:
        return SynthValue{SynthValue::Kind::kNone, "none", {}, {}};
      default:
        fail(fmt::format("a pattern {} in an operand position", ast::node_kind_name(e->kind)));
        return std::nullopt;
    }
  }

  std::optional<SynthValue> eval_call(const ast::CallExpr& call, std::string_view name) {
    if (call.bound.empty()) {
      fail("a call sema did not resolve");
      return std::nullopt;
    }
    const ast::BoundCall& bound = call.bound[choose(static_cast<int>(call.bound.size()))];
    std::vector<const ast::Expr*> operands;
    for (const ast::Arg* a : bound.operands) operands.push_back(a != nullptr ? a->value : nullptr);
    std::vector<const ast::Arg*> attrs(bound.attrs.begin(), bound.attrs.end());
    return emit_op(*bound.schema, operands, attrs, name);
  }

  /// The type of the pending operand `index` of `schema`, from its role; `vals` holds the
  /// operands known so far and `attrs` the attribute values (empty before they are chosen).
  std::optional<TensorType> role_type(const OpSchema& s, size_t index, const std::string& name,
                                      const std::vector<std::optional<SynthValue>>& vals,
                                      const std::vector<AttrValue>& attrs, bool* positive) {
    const std::string& op = s.name;
    const std::string operand = index < s.operands.size() ? s.operands[index].name : "tensors";
    auto known = [&](size_t k) -> const TensorType* {
      return k < vals.size() && vals[k] && vals[k]->kind == SynthValue::Kind::kTensor
                 ? &vals[k]->type
                 : nullptr;
    };
    auto attr = [&](const char* a) -> const AttrValue* {
      int i = s.attr_index(a);
      return i >= 0 && static_cast<size_t>(i) < attrs.size() ? &attrs[i] : nullptr;
    };
    auto tensor = [](Shape shape) { return TensorType{DType::kFloat32, std::move(shape)}; };
    const int64_t out_features = shape_choice_ == 0 ? 6 : 5;
    const TensorType* x = known(0);
    bool is_conv = op == "conv2d" || op == "conv2d_post";
    bool is_linear = op == "linear" || op == "linear_post";
    if (operand == "residual") return infer(s, vals, attrs);
    if (is_conv || is_linear || op == "batch_norm" || op == "layer_norm" || op == "matmul") {
      if (index == 0) {
        int rank = is_conv || op == "batch_norm" ? 4 : op == "layer_norm" ? 3 : 2;
        Shape shape = default_shape(rank_of(name, rank), name);
        if (op == "matmul" && known(1) && known(1)->rank() >= 2 && !shape.empty()) {
          shape.back() = known(1)->shape[known(1)->rank() - 2];
        }
        return tensor(shape);
      }
      if (x == nullptr || x->rank() < 1) {
        fail(fmt::format("{}'s {} needs a tensor input to take its shape from", op, operand));
        return std::nullopt;
      }
    }
    if (is_conv) {
      if (x->rank() != 4) return tensor(default_shape(4, name));
      int64_t channels = x->shape[1];
      int64_t groups = std::get<int64_t>(*attr("groups"));
      if (groups < 1 || channels % groups != 0) {
        fail(fmt::format("groups={} does not divide the {} input channels", groups, channels));
        return std::nullopt;
      }
      if (operand == "weight") {
        int64_t out = groups > 1 && groups == channels ? channels : groups * ((6 + groups - 1) / groups);
        return tensor({out, channels / groups, 3, 3});
      }
      const TensorType* w = known(1);
      return tensor({w != nullptr ? w->shape[0] : 6});  // bias
    }
    if (is_linear) {
      if (operand == "weight") return tensor({out_features, x->shape.back()});
      const TensorType* w = known(1);
      return tensor({w != nullptr ? w->shape[0] : out_features});  // bias
    }
    if (op == "matmul") {
      int64_t k = x->shape.back();
      return rank_of(name, 2) == 1 ? tensor({k}) : tensor({k, out_features});
    }
    if (op == "batch_norm") {
      *positive = operand == "running_var";
      return tensor({x->rank() >= 2 ? x->shape[1] : x->shape[0]});
    }
    if (op == "layer_norm") {
      const AttrValue* normalized = attr("normalized_shape");
      if (normalized != nullptr && std::holds_alternative<std::vector<int64_t>>(*normalized)) {
        return tensor(std::get<std::vector<int64_t>>(*normalized));
      }
      return tensor({x->shape.back()});
    }
    *positive = op == "sqrt" || op == "rsqrt" || op == "log" || op == "reciprocal";
    if (s.in_class("binary") || op == "cat" || index > 0) {
      // Elementwise: the shape of a known tensor operand (its trailing dims for a lower rank).
      for (size_t k = 0; k < vals.size(); ++k) {
        const TensorType* other = known(k);
        if (other == nullptr) continue;
        int rank = rank_of(name, static_cast<int>(other->rank()));
        if (rank > other->rank()) break;
        return tensor(Shape(other->shape.end() - rank, other->shape.end()));
      }
    }
    return tensor(default_shape(rank_of(name, s.in_class("shape") ? 3 : 4), name));
  }

  /// Candidate values of attribute `spec` of `s` bound to a variable, for input type `x`.
  std::vector<AttrValue> candidates(const OpSchema& s, const AttrSpec& spec, const TensorType* x) {
    const std::string& a = spec.name;
    int64_t rank = x != nullptr ? x->rank() : 4;
    auto pair = [](int64_t v) { return AttrValue{std::vector<int64_t>{v, v}}; };
    if (a == "stride") return {pair(1), pair(2)};
    if (a == "padding") return {pair(0), pair(1)};
    if (a == "dilation") return {pair(1), pair(2)};
    if (a == "kernel_size") return {pair(2), pair(3)};
    if (a == "output_size") return {pair(1), pair(2)};
    if (a == "groups") {
      int64_t c = x != nullptr && x->rank() >= 2 ? x->shape[1] : 4;
      std::vector<AttrValue> out = {AttrValue{int64_t{1}}, AttrValue{c}};
      if (c % 2 == 0 && c > 2) out.push_back(AttrValue{int64_t{2}});
      return out;
    }
    if (a == "eps") return {AttrValue{1e-5}, AttrValue{1e-3}};
    if (a == "training" || a == "keepdim" || a == "ceil_mode") return {AttrValue{false}};
    if (a == "p") return {AttrValue{0.5}, AttrValue{0.0}};
    if (a == "negative_slope") return {AttrValue{0.01}, AttrValue{0.2}};
    if (a == "min_val") return {AttrValue{-1.0}, AttrValue{0.0}};
    if (a == "max_val") return {AttrValue{1.0}, AttrValue{6.0}};
    if (a == "approximate") return {AttrValue{std::string("none")}, AttrValue{std::string("tanh")}};
    if (a == "normalized_shape" && x != nullptr && rank >= 1) {
      return {AttrValue{std::vector<int64_t>{x->shape.back()}}};
    }
    if (a == "dims" && s.name == "permute") {
      std::vector<int64_t> rotate(rank), reverse(rank);
      for (int64_t i = 0; i < rank; ++i) {
        rotate[i] = (i + 1) % rank;
        reverse[i] = rank - 1 - i;
      }
      return {AttrValue{rotate}, AttrValue{reverse}};
    }
    if (a == "shape" && x != nullptr && rank >= 1) {
      // Another shape of the same elements: the dims rotated, or the first dim and the rest.
      Shape rotated(x->shape.begin() + 1, x->shape.end());
      rotated.push_back(x->shape[0]);
      return {AttrValue{rotated}, AttrValue{x->shape},
              AttrValue{std::vector<int64_t>{x->shape[0], -1}}};
    }
    if (a == "dim0") return {AttrValue{int64_t{0}}, AttrValue{int64_t{1}}};
    if (a == "dim1") return {AttrValue{rank - 1}, AttrValue{int64_t{rank > 2 ? rank - 2 : 0}}};
    if (a == "dim" && spec.type == AttrType::kInts) return {AttrValue{std::vector<int64_t>{-1}}};
    if (a == "dim") return {AttrValue{int64_t{-1}}, AttrValue{int64_t{1}}};
    if (a == "start_dim") return {AttrValue{int64_t{1}}};
    if (a == "end_dim") return {AttrValue{int64_t{-1}}};
    if (spec.has_default && !is_none(spec.default_value)) return {spec.default_value};
    switch (spec.type) {
      case AttrType::kBool: return {AttrValue{false}};
      case AttrType::kInt: return {AttrValue{int64_t{1}}};
      case AttrType::kFloat:
      case AttrType::kScalar: return {AttrValue{0.5}};
      case AttrType::kString: return {AttrValue{std::string("none")}};
      case AttrType::kInts:
        return {AttrValue{std::vector<int64_t>(std::max(spec.fixed_length, 1), 1)}};
      case AttrType::kFloats: return {AttrValue{std::vector<double>{0.5}}};
    }
    return {AttrValue{}};
  }

  /// The value of attribute `index` of `s` as the pattern states it (`emit` is set when the
  /// graph must spell it out), or its default when the pattern does not mention it.
  std::optional<AttrValue> choose_attr(const OpSchema& s, size_t index, const ast::Arg* arg,
                                       const TensorType* x, bool* emit) {
    const AttrSpec& spec = s.attrs[index];
    AttrValue def = spec.has_default ? spec.default_value : AttrValue{};
    *emit = false;
    if (arg == nullptr || arg->value->kind == ast::NodeKind::kWildcard) {
      // Not checked by the rule, so the rule must be right for any value: the default, or
      // (in later variants) one of the usual values.
      std::vector<AttrValue> options;
      if (spec.has_default && (spec.nullable || !is_none(def))) options.push_back(def);
      for (const AttrValue& v : candidates(s, spec, x)) {
        bool seen = std::any_of(options.begin(), options.end(),
                                [&](const AttrValue& o) { return attr_equal(o, v); });
        if (!seen && !is_none(v)) options.push_back(v);
      }
      AttrValue chosen = options[choose(static_cast<int>(options.size()))];
      std::string err;
      std::optional<AttrValue> coerced = coerce_attr(spec, chosen, &err);
      if (!coerced) return def;
      *emit = !spec.has_default || !attr_equal(*coerced, def);
      return coerced;
    }
    std::optional<AttrValue> value;
    if (arg->is_in) {
      if (const auto* set = ast::dyn_cast<ast::SetExpr>(arg->value)) {
        value = literal_value(set->items[choose(static_cast<int>(set->items.size()))]);
      } else if (const auto* range = ast::dyn_cast<ast::RangeExpr>(arg->value)) {
        value = literal_value(choose(2) == 0 ? range->lo : range->hi);
      }
    } else if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(arg->value)) {
      value = choose_var(std::string(var->name), candidates(s, spec, x));
      if (!value) return std::nullopt;
    } else {
      value = literal_value(arg->value);
    }
    if (!value) {
      fail(fmt::format("{}'s {} has a form the synthesiser cannot instantiate", s.name, spec.name));
      return std::nullopt;
    }
    std::string err;
    std::optional<AttrValue> coerced = coerce_attr(spec, *value, &err);
    if (!coerced) {
      fail(fmt::format("{}'s {}: {}", s.name, spec.name, err));
      return std::nullopt;
    }
    *emit = true;
    return coerced;
  }

  std::optional<TensorType> infer(const OpSchema& s,
                                  const std::vector<std::optional<SynthValue>>& vals,
                                  const std::vector<AttrValue>& attrs) {
    InferInputs in;
    in.schema = &s;
    in.attrs = attrs;
    in.variadic_begin = s.has_variadic() ? s.operands.size() - 1 : vals.size();
    for (const std::optional<SynthValue>& v : vals) {
      bool tensor = v && v->kind == SynthValue::Kind::kTensor;
      bool scalar = v && v->kind == SynthValue::Kind::kScalar;
      in.operand_types.push_back(tensor ? &v->type : nullptr);
      in.scalars.push_back(scalar ? std::optional<Scalar>(v->scalar) : std::nullopt);
    }
    std::string err;
    std::optional<TensorType> out = s.infer != nullptr ? s.infer(in, &err) : std::nullopt;
    if (!out) fail(fmt::format("the chosen shapes do not fit {}: {}", s.name, err));
    return out;
  }

  /// Writes `s(operands…, attrs…)` as a statement named `name` (or a fresh name) after giving
  /// every pending operand a type; returns the value.
  /// `operator_sugar`: the op was written `a / b` or `-a`, which match the op's default
  /// attributes only (docs/rules.md §3), so no other values are tried.
  std::optional<SynthValue> emit_op(const OpSchema& s, std::vector<const ast::Expr*> operands,
                                    std::vector<const ast::Arg*> attrs, std::string_view name,
                                    bool operator_sugar = false) {
    // Flatten a variadic operand's list: one input per item.
    std::vector<const ast::Expr*> ins;
    size_t variadic_begin = operands.size();
    for (size_t i = 0; i < operands.size(); ++i) {
      const auto* list = ast::dyn_cast<ast::ListExpr>(operands[i]);
      if (i < s.operands.size() && s.operands[i].variadic && list != nullptr) {
        variadic_begin = i;
        ins.insert(ins.end(), list->items.begin(), list->items.end());
      } else {
        ins.push_back(operands[i]);
      }
    }
    attrs.resize(s.attrs.size(), nullptr);
    auto optional_operand = [&](size_t i) {
      return i < s.operands.size() && i < variadic_begin && s.operands[i].optional;
    };
    // 1. Sub-expressions and known values; `_` and absent optional operands are None.
    std::vector<std::optional<SynthValue>> vals(ins.size());
    for (size_t i = 0; i < ins.size(); ++i) {
      if (ins[i] == nullptr ||
          (ins[i]->kind == ast::NodeKind::kWildcard && optional_operand(i))) {
        vals[i] = SynthValue{SynthValue::Kind::kNone, "none", {}, {}};
      } else if (!is_pending(ins[i])) {
        vals[i] = eval(ins[i], "");
        if (!vals[i]) return std::nullopt;
      }
    }
    auto define = [&](size_t i, const std::vector<AttrValue>& attr_values) -> bool {
      std::string pname = ins[i]->kind == ast::NodeKind::kWildcard
                              ? fresh("any")
                              : std::string(static_cast<const ast::NameExpr*>(ins[i])->name);
      // Typed meanwhile by a sibling operand (x in `x * sigmoid(x)`).
      if (auto it = values_.find(pname); it != values_.end()) {
        vals[i] = it->second;
        return true;
      }
      bool positive = false;
      std::optional<TensorType> t = role_type(s, std::min(i, variadic_begin), pname, vals,
                                              attr_values, &positive);
      if (!t) return false;
      vals[i] = define_param(pname, *t, positive);
      return true;
    };
    // 2. The first operand, which most roles take their shapes from; permute's dims decide
    // its rank, so they are chosen first.
    std::optional<AttrValue> early;
    bool early_emit = false;
    int early_index = s.name == "permute" ? s.attr_index("dims") : -1;
    if (!ins.empty() && !vals[0] && early_index >= 0) {
      early = choose_attr(s, early_index, attrs[early_index], nullptr, &early_emit);
      if (!early) return std::nullopt;
      if (const auto* dims = std::get_if<std::vector<int64_t>>(&*early)) {
        rank_override_ = static_cast<int>(dims->size());
      }
    }
    bool defined = ins.empty() || vals[0] || define(0, {});
    rank_override_ = -1;
    if (!defined) return std::nullopt;
    // 3. Attributes.
    std::vector<AttrValue> attr_values(s.attrs.size());
    std::vector<std::string> attr_args;
    const TensorType* x =
        !vals.empty() && vals[0]->kind == SynthValue::Kind::kTensor ? &vals[0]->type : nullptr;
    for (size_t j = 0; j < s.attrs.size(); ++j) {
      bool emit = early_emit;
      std::optional<AttrValue> v;
      if (operator_sugar) {
        v = s.attrs[j].default_value;
        emit = false;
      } else {
        v = static_cast<int>(j) == early_index && early ? early
                                                        : choose_attr(s, j, attrs[j], x, &emit);
      }
      if (!v) return std::nullopt;
      attr_values[j] = *v;
      if (emit) attr_args.push_back(s.attrs[j].name + "=" + attr_text(*v));
    }
    // 4. The other pending operands.
    for (size_t i = 1; i < ins.size(); ++i) {
      if (!vals[i] && !define(i, attr_values)) return std::nullopt;
    }
    std::optional<TensorType> out = infer(s, vals, attr_values);
    if (!out) return std::nullopt;
    // 5. The statement: operands positionally up to the last one present.
    std::vector<std::string> args;
    size_t last = 0;
    for (size_t i = 0; i < vals.size(); ++i) {
      if (vals[i]->kind != SynthValue::Kind::kNone) last = i + 1;
    }
    std::vector<std::string> items;
    for (size_t i = 0; i < last; ++i) {
      if (i >= variadic_begin) {
        items.push_back(vals[i]->text);
      } else {
        args.push_back(vals[i]->text);
      }
    }
    if (variadic_begin < vals.size()) args.push_back(fmt::format("[{}]", fmt::join(items, ", ")));
    args.insert(args.end(), attr_args.begin(), attr_args.end());
    std::string target = name.empty() ? fresh("t") : std::string(name);
    stmts_.push_back(fmt::format("{} = {}({})", target, s.name, fmt::join(args, ", ")));
    SynthValue v;
    v.kind = SynthValue::Kind::kTensor;
    v.text = target;
    v.type = *out;
    values_[target] = v;
    return v;
  }

  const ast::RuleDecl& rule_;
  int variant_;
  int shape_choice_;
  int points_ = 0;
  std::string error_;

  std::set<std::string> params_, const_, absent_, used_names_;
  std::map<std::string, int> rank_hint_;
  std::map<std::string, std::map<int, int64_t>> dim_hint_;
  std::map<std::string, std::vector<const ast::Condition*>> var_conditions_;
  std::map<std::string, AttrValue> vars_;
  bool wrap_outputs_ = false;
  int rank_override_ = -1;  // the rank of the operand being defined, when an attribute fixes it

  std::map<std::string, SynthValue> values_;
  std::vector<std::string> inputs_;
  std::vector<std::string> stmts_;
};

}  // namespace

std::optional<SynthesizedGraph> synthesize_graph(const dsl::CheckedRule& rule, int variant,
                                                 std::string* why) {
  return Synth(rule, variant).run(why);
}

int variants_worth_trying(const dsl::CheckedRule& rule, int base) {
  size_t most = 1;
  auto visit = [&](const ast::CallExpr& call) { most = std::max(most, call.bound.size()); };
  for (const ast::Stmt* s : rule.decl->pattern->body->stmts) {
    if (const auto* a = ast::dyn_cast<ast::AssignStmt>(s)) for_each_call(a->value, visit);
  }
  for (const ast::Expr* e : rule.decl->pattern->body->ret->values) for_each_call(e, visit);
  return std::min(32, std::max(base, static_cast<int>(most)));
}

}  // namespace graft::ruletest
