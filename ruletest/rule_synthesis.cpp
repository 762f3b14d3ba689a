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

#include "dsl/literal.h"
#include "ruletest/synthesis.h"

namespace graft::ruletest {
namespace synthesis {

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
    // Symbols print bare, as the rules language writes dims ([N, -1]).
    std::string operator()(const SymInts& l) const { return attr_to_string(AttrValue{l}); }
  };
  return std::visit(Printer{}, v);
}

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

std::optional<SynthesizedGraph> Synth::run(std::string* why) {
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
  if (!inputs_.empty() || !const_.empty()) out.dtype = input_dtype_;
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

/// A choice among `n` options: the first in variant 0; otherwise the parity of the variant's
/// bits under the choice point's own code (a linear code over GF(2)), so that any two choice
/// points whose codes differ take all four combinations of first/other option within eight
/// variants. A plain (variant + point) % n ties points an even distance apart together for
/// ever: both dims of two transposes, or ceil_mode to the kernel size. Past two options, a
/// hash of variant and point spreads the rest.
int Synth::choose(int n) {
  if (n <= 1) return 0;
  const auto point = static_cast<uint32_t>(points_++);
  if (variant_ == 0) return 0;
  // Codes 1..7 but for 2 and 4, whose parity would copy the variant bits that pick the shape
  // size and the extra batch dim; then the same with higher bits for more variants.
  static constexpr uint32_t kLowCodes[] = {1, 3, 5, 6, 7};
  const uint32_t code = kLowCodes[point % 5] | ((point / 5) << 3);
  const auto v = static_cast<uint32_t>(variant_);
  const int parity = __builtin_popcount(v & code) & 1;
  if (n == 2) return parity;
  const uint64_t h = (uint64_t{v} * 0x9E3779B97F4A7C15ull) ^ (uint64_t{point} * 0xC2B2AE3D27D4EB4Full);
  return static_cast<int>((static_cast<uint64_t>(parity) + 2 * ((h >> 29) % static_cast<uint64_t>(n))) %
                          static_cast<uint64_t>(n));
}

double Synth::within_tolerance(const ast::ToleranceExpr& t) {
  const double value = t.value->float_value;
  const double off = 0.9 * std::fabs(t.tolerance->float_value);
  switch (choose(3)) {
    case 1: return value + off;
    case 2: return value - off;
    default: return value;
  }
}

void Synth::fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

std::string Synth::fresh(const std::string& base) {
  for (int i = 1;; ++i) {
    std::string name = fmt::format("{}{}", base, i);
    if (used_names_.insert(name).second) return name;
  }
}

/// Whether operand expression `e` is a parameter not yet given a type (or a `_` in a tensor
/// position): its type comes from its role in the op that uses it.
bool Synth::is_pending(const ast::Expr* e) const {
  if (e == nullptr) return false;
  if (e->kind == ast::NodeKind::kWildcard) return true;
  const auto* n = ast::dyn_cast<ast::NameExpr>(e);
  if (n == nullptr || n->decl == nullptr || n->decl->kind != ast::NodeKind::kParam) return false;
  std::string name(n->name);
  return !values_.count(name) && !absent_.count(name);
}

SynthValue Synth::define_param(const std::string& name, const TensorType& type, bool positive) {
  SynthValue v;
  v.kind = SynthValue::Kind::kTensor;
  v.text = name;
  v.type = type;
  // A hinted dtype (`dtype(x) == f16`) wins; else inputs take the variant's dtype, and
  // constants too where it is a float (an integer weight is no instance of a float rule).
  if (auto hint = dtype_hint_.find(name); hint != dtype_hint_.end()) {
    v.type.dtype = hint->second;
  } else if (!const_.count(name) || is_floating(input_dtype_)) {
    v.type.dtype = input_dtype_;
  }
  if (const_.count(name)) {
    auto fill = fill_hint_.find(name);
    stmts_.push_back(fmt::format("{} = param {}{}{}{}{}", name, dtype_alias(v.type.dtype),
                                 shape_text(type.shape),
                                 positive && fill == fill_hint_.end() ? " positive" : "",
                                 buffers_.count(name) ? " buffer" : "",
                                 fill != fill_hint_.end() ? " = " + float_text(fill->second) : ""));
  } else {
    inputs_.push_back(fmt::format("{}: {}{}", name, dtype_alias(v.type.dtype), shape_text(type.shape)));
  }
  values_[name] = v;
  return v;
}

std::optional<SynthValue> Synth::eval(const ast::Expr* e, std::string_view name) {
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
    case ast::NodeKind::kNumber: {
      const auto* n = static_cast<const ast::NumberExpr*>(e);
      return SynthValue{SynthValue::Kind::kScalar, std::string(n->spelling), {},
                        Scalar{n->float_value, n->is_int}};
    }
    case ast::NodeKind::kTolerance: {
      const double d = within_tolerance(*static_cast<const ast::ToleranceExpr*>(e));
      return SynthValue{SynthValue::Kind::kScalar, float_text(d), {}, Scalar{d, false}};
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

std::optional<SynthValue> Synth::eval_call(const ast::CallExpr& call, std::string_view name) {
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

std::optional<TensorType> Synth::infer(const OpSchema& s,
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
std::optional<SynthValue> Synth::emit_op(const OpSchema& s, std::vector<const ast::Expr*> operands,
                                  std::vector<const ast::Arg*> attrs, std::string_view name,
                                  bool operator_sugar) {
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
    // Sizes the rule's `dim`/`shape` conditions fix win over the role's (a 1x1 kernel for
    // `dim(w, 2) == 1`), as they do for operands that no role shapes.
    apply_dim_hints(pname, t->shape);
    vals[i] = define_param(pname, *t, positive);
    return true;
  };
  // 2. The first operand, which most roles take their shapes from; permute's `dims` lists
  // every dim, so it decides the rank and is chosen first (flip's and roll's name only some).
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
  // 5. The statement: operands positionally up to the last one present, while no attribute
  // comes before them in the signature (layer_norm's weight follows normalized_shape); the
  // others by keyword.
  std::vector<std::string> args;
  size_t last = 0;
  for (size_t i = 0; i < vals.size(); ++i) {
    if (vals[i]->kind != SynthValue::Kind::kNone) last = i + 1;
  }
  size_t positional = 0;  // operands before the signature's first attribute
  while (positional < s.params.size() && s.params[positional].is_operand) ++positional;
  std::vector<std::string> items, by_keyword;
  for (size_t i = 0; i < last; ++i) {
    if (i >= variadic_begin) {
      items.push_back(vals[i]->text);
    } else if (i < positional) {
      args.push_back(vals[i]->text);
    } else if (vals[i]->kind != SynthValue::Kind::kNone) {
      by_keyword.push_back(s.operands[i].name + "=" + vals[i]->text);
    }
  }
  if (variadic_begin < vals.size()) args.push_back(fmt::format("[{}]", fmt::join(items, ", ")));
  args.insert(args.end(), by_keyword.begin(), by_keyword.end());
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
}  // namespace synthesis

namespace {

namespace ast = dsl::ast;

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

}  // namespace

std::optional<SynthesizedGraph> synthesize_graph(const dsl::CheckedRule& rule, int variant,
                                                 std::string* why, ShapeSize size) {
  return synthesis::Synth(rule, variant, size).run(why);
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
