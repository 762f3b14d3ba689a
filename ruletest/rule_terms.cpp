// The values of a rule's two sides as prover terms (rule_terms.h): inputs, attributes and `$`
// variables, pattern nodes and replacement ops.
#include "ruletest/rule_terms.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

namespace graft::ruletest {
namespace {

/// `d` exactly, as a decimal numeral (a double's expansion is finite).
std::string exact_decimal(double d) {
  std::string s = fmt::format("{:.1100f}", d);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

/// An int attribute's literal as an integer.
int64_t literal_int(const AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  if (const auto* d = std::get_if<double>(&v)) return whole_number(*d);
  throw Outside{"an int attribute that is not an integer"};
}

/// An int list literal, item by item.
std::optional<std::vector<int64_t>> literal_ints(const AttrValue& v) {
  if (const auto* l = std::get_if<std::vector<int64_t>>(&v)) return *l;
  if (const auto* l = std::get_if<SymInts>(&v)) {
    std::vector<int64_t> out;
    for (const SymInt& s : *l) {
      if (!std::holds_alternative<int64_t>(s)) throw Outside{"a size that is a symbol"};
      out.push_back(std::get<int64_t>(s));
    }
    return out;
  }
  return std::nullopt;
}

bool only_bool(const Term& t) {
  if (t.kind == Term::Kind::kDType) return t.dtype == DType::kBool;
  if (t.kind != Term::Kind::kSet || t.items.empty()) return false;
  for (const Term& item : t.items) {
    if (item.kind != Term::Kind::kDType || item.dtype != DType::kBool) return false;
  }
  return true;
}

}  // namespace

RuleTerms::RuleTerms(const Rule& rule, bool float32, std::vector<size_t> choice,
                     const ProofAssumptions& assume)
    : rule_(rule),
      fp_(float32),
      tensors_(assume.shapes_only || !elementwise_rule(rule, choice)),
      choice_(std::move(choice)),
      assume_(assume),
      algebra_(ctx_) {
  if (fp_) ctx_.set_rounding_mode(z3::RNE);
  // `dtype(m) == bool` makes m's elements 0 or 1.
  for (const Condition& c : rule_.conditions) {
    if (c.kind == Condition::Kind::kCompare && !c.negated && c.lhs.kind == Term::Kind::kDTypeOf &&
        c.lhs.value.kind == ValueRef::Kind::kVar &&
        (c.op == CmpOp::kEq || c.op == CmpOp::kIn) && only_bool(c.rhs)) {
      bool_inputs_.insert(rule_.var_names[c.lhs.value.index]);
    }
  }
}

z3::expr RuleTerms::number(double v) {
  if (fp_) return ctx_.fpa_val(static_cast<float>(v));
  if (!std::isfinite(v)) throw Outside{"a non-finite literal has no real value"};
  return ctx_.real_val(exact_decimal(v).c_str());
}

z3::expr RuleTerms::input(const std::string& name) {
  auto it = inputs_.find(name);
  if (it != inputs_.end()) return it->second;
  z3::expr e = fp_ ? ctx_.fpa_const(name.c_str(), 8, 24) : ctx_.real_const(name.c_str());
  inputs_.emplace(name, e);
  return e;
}

/// An attribute's or a `$` scalar's value. Models give them as numbers, so in float32 they are
/// finite (a slope of inf would refute most rules about slopes); tensors' elements are not.
z3::expr RuleTerms::attribute(const std::string& name) {
  const bool fresh = inputs_.find(name) == inputs_.end();
  z3::expr e = input(name);
  if (fp_ && fresh) constraints_.push_back(!e.mk_is_inf() && !e.mk_is_nan());
  return e;
}

z3::expr RuleTerms::attr_var(uint32_t var) { return attribute("$" + rule_.attr_var_names[var]); }

z3::expr RuleTerms::int_var(uint32_t var) {
  auto it = int_vars_.find(var);
  if (it != int_vars_.end()) return it->second;
  z3::expr e = ctx_.int_const(("$" + rule_.attr_var_names[var]).c_str());
  int_vars_.emplace(var, e);
  return e;
}

z3::expr RuleTerms::symbol(uint32_t id) {
  auto it = symbols_.find(id);
  if (it == symbols_.end()) {
    it = symbols_.emplace(id, ctx_.int_const(fmt::format("N{}", id).c_str())).first;
  }
  return it->second;
}

Tensor RuleTerms::input_tensor(uint32_t var) {
  const std::string& name = rule_.var_names[var];
  if (auto it = tensor_inputs_.find(name); it != tensor_inputs_.end()) return it->second;
  std::optional<int> rank = 0;
  if (tensors_) {
    auto r = assume_.ranks.find(name);
    rank = r == assume_.ranks.end() ? std::nullopt : std::optional<int>(r->second);
  }
  const bool is_bool = bool_inputs_.count(name) > 0;
  auto element = [this, name, is_bool](const std::vector<z3::expr>& index) -> z3::expr {
    if (index.empty()) return is_bool ? boolean(ctx_.bool_const(name.c_str())) : input(name);
    z3::sort_vector domain(ctx_);
    z3::expr_vector args(ctx_);
    for (const z3::expr& i : index) {
      domain.push_back(ctx_.int_sort());
      args.push_back(i);
    }
    const z3::sort s = is_bool ? ctx_.bool_sort() : fp_ ? ctx_.fpa_sort<32>() : ctx_.real_sort();
    z3::expr e = ctx_.function(name.c_str(), domain, s)(args);
    return is_bool ? boolean(e) : e;
  };
  Tensor t = algebra_.input(name, rank, element);
  tensor_inputs_.emplace(name, t);
  return t;
}

Tensor RuleTerms::value_of(const ValueRef& v) {
  return v.kind == ValueRef::Kind::kVar ? input_tensor(v.index) : node_value(v.index);
}

Tensor RuleTerms::node_value(uint32_t index) {
  if (auto it = nodes_.find(index); it != nodes_.end()) return it->second;
  const bool was_replacement = in_replacement_;
  in_replacement_ = false;  // a pattern node's needs are assumptions, wherever it is first used
  const PatNode& node = rule_.nodes[index];
  const PatAlt& alt = node.alts[index < choice_.size() ? choice_[index] : 0];
  std::vector<std::optional<Tensor>> operands;
  for (const PatValue& v : alt.operands) operands.push_back(pattern_operand(v));
  Tensor t = apply(*alt.schema, operands, pattern_attrs(alt));
  in_replacement_ = was_replacement;
  nodes_.emplace(index, t);
  return t;
}

std::optional<Tensor> RuleTerms::pattern_operand(const PatValue& v) {
  switch (v.kind) {
    case PatValue::Kind::kVar: return input_tensor(v.index);
    case PatValue::Kind::kNode: return node_value(v.index);
    case PatValue::Kind::kScalar:
      if (v.tolerance > 0) throw Outside{"a scalar matched within a tolerance"};
      return TensorAlgebra::scalar(number(v.scalar));
    case PatValue::Kind::kScalarVar: return TensorAlgebra::scalar(attr_var(v.index));
    case PatValue::Kind::kNone: return std::nullopt;
    case PatValue::Kind::kAny: throw Outside{"an operand left open ('_')"};
  }
  return std::nullopt;
}

/// The value an attribute check gives an attribute (a literal, a variable, or a fresh value
/// constrained to a set or range).
std::optional<z3::expr> RuleTerms::pattern_attr(const AttrCheck& c, const OpSchema& op,
                                                std::vector<bool>* fixed) {
  (*fixed)[c.attr] = true;
  switch (c.kind) {
    case AttrCheck::Kind::kEquals:
      if (c.tolerance > 0) throw Outside{"an attribute matched within a tolerance"};
      return attr_number(c.value);
    case AttrCheck::Kind::kBind: return attr_var(c.var);
    case AttrCheck::Kind::kRange: {
      z3::expr e = attribute(fmt::format("{}.{}#{}", op.name, op.attrs[c.attr].name, inputs_.size()));
      constraints_.push_back(number(c.lo) <= e && e <= number(c.hi));
      return e;
    }
    case AttrCheck::Kind::kIn:
    case AttrCheck::Kind::kList:
    case AttrCheck::Kind::kAny: (*fixed)[c.attr] = false; return std::nullopt;
  }
  return std::nullopt;
}

std::optional<z3::expr> RuleTerms::free_attr(const OpSchema& op, size_t i) {
  const AttrType t = op.attrs[i].type;
  if (t != AttrType::kInt && t != AttrType::kFloat && t != AttrType::kScalar) return std::nullopt;
  return attribute(fmt::format("{}.{}#{}", op.name, op.attrs[i].name, inputs_.size()));
}

std::optional<z3::expr> RuleTerms::attr_number(const AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return number(static_cast<double>(*i));
  if (const auto* d = std::get_if<double>(&v)) return number(*d);
  if (const auto* b = std::get_if<bool>(&v)) return number(*b ? 1 : 0);
  return std::nullopt;
}

std::optional<std::vector<z3::expr>> RuleTerms::list_choice(uint32_t var) {
  const Term* lists = list_set(rule_, var);
  if (lists == nullptr) return std::nullopt;
  auto chosen = assume_.lists.find(var);
  if (chosen == assume_.lists.end()) throw NeedList{var, lists->items.size()};
  std::vector<z3::expr> out;
  for (const Term& item : lists->items.at(chosen->second).items) {
    if (item.kind != Term::Kind::kNumber || !item.is_int) return std::nullopt;
    out.push_back(ctx_.int_val(whole_number(item.number)));
  }
  return out;
}

AttrTerms RuleTerms::pattern_attrs(const PatAlt& alt) {
  const OpSchema& op = *alt.schema;
  AttrTerms out;
  out.numbers.resize(op.attrs.size(), std::nullopt);
  std::vector<bool> fixed(op.attrs.size(), false);
  for (const AttrCheck& c : alt.attrs) {
    const AttrType type = op.attrs[c.attr].type;
    if (type == AttrType::kInts || type == AttrType::kFloats) {
      fixed[c.attr] = true;  // a list: taken item by item (int_list) or whole (opaque_list)
      continue;
    }
    out.numbers[c.attr] = pattern_attr(c, op, &fixed);
  }
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    // An attribute the pattern leaves open may have any value.
    if (!fixed[i]) out.numbers[i] = free_attr(op, i);
  }
  auto check = [&alt](size_t i) -> const AttrCheck* {
    for (const AttrCheck& c : alt.attrs) {
      if (c.attr == i) return &c;
    }
    return nullptr;
  };
  out.literal = [check](size_t i) -> std::optional<AttrValue> {
    const AttrCheck* c = check(i);
    if (c && c->kind == AttrCheck::Kind::kEquals) return c->value;
    return std::nullopt;
  };
  auto ints = std::make_shared<std::map<size_t, z3::expr>>();
  auto fresh_int = [this](const std::string& what) {
    return ctx_.int_const(fmt::format("{}#{}", what, fresh_++).c_str());
  };
  auto item_int = [this, fresh_int, &op](const AttrCheck& c, size_t i) -> z3::expr {
    switch (c.kind) {
      case AttrCheck::Kind::kEquals: return ctx_.int_val(literal_int(c.value));
      case AttrCheck::Kind::kBind: return int_var(c.var);
      case AttrCheck::Kind::kIn: {
        z3::expr e = fresh_int(op.name + "." + op.attrs[i].name);
        z3::expr any = ctx_.bool_val(false);
        for (const AttrValue& v : c.values) any = any || e == ctx_.int_val(literal_int(v));
        constraints_.push_back(any);
        return e;
      }
      case AttrCheck::Kind::kRange: {
        z3::expr e = fresh_int(op.name + "." + op.attrs[i].name);
        constraints_.push_back(ctx_.int_val(whole_number(std::ceil(c.lo))) <= e &&
                               e <= ctx_.int_val(whole_number(std::floor(c.hi))));
        return e;
      }
      default: return fresh_int(op.name + "." + op.attrs[i].name);
    }
  };
  out.integer = [check, ints, item_int, fresh_int, &op](size_t i) -> z3::expr {
    if (auto it = ints->find(i); it != ints->end()) return it->second;
    const AttrCheck* c = check(i);
    z3::expr e = c ? item_int(*c, i) : fresh_int(op.name + "." + op.attrs[i].name);
    ints->emplace(i, e);
    return e;
  };
  out.int_list = [this, check, item_int](size_t i) -> std::optional<std::vector<z3::expr>> {
    const AttrCheck* c = check(i);
    if (!c) return std::nullopt;
    if (c->kind == AttrCheck::Kind::kEquals) {
      std::optional<std::vector<int64_t>> l = literal_ints(c->value);
      if (!l) return std::nullopt;
      std::vector<z3::expr> items;
      for (int64_t v : *l) items.push_back(ctx_.int_val(v));
      return items;
    }
    if (c->kind == AttrCheck::Kind::kList) {
      std::vector<z3::expr> items;
      for (const AttrCheck& item : c->elements) items.push_back(item_int(item, i));
      return items;
    }
    if (c->kind == AttrCheck::Kind::kBind) return list_choice(c->var);
    return std::nullopt;
  };
  out.opaque_list = [this, check](size_t i) -> z3::expr {
    const AttrCheck* c = check(i);
    const z3::sort sizes = ctx_.uninterpreted_sort("Sizes");
    if (c && c->kind == AttrCheck::Kind::kBind) {
      return ctx_.constant(("$" + rule_.attr_var_names[c->var]).c_str(), sizes);
    }
    return ctx_.constant(fmt::format("sizes#{}", fresh_++).c_str(), sizes);
  };
  return out;
}

AttrTerms RuleTerms::replacement_attrs(const ReplOp& op) {
  const OpSchema& schema = *op.schema;
  auto value = [&op](size_t i) -> ReplValue { return i < op.attrs.size() ? op.attrs[i] : ReplValue{}; };
  AttrTerms out;
  out.numbers.resize(schema.attrs.size(), std::nullopt);
  for (size_t i = 0; i < schema.attrs.size(); ++i) {
    const ReplValue a = value(i);
    if (a.kind == ReplValue::Kind::kLiteral) {
      out.numbers[i] = attr_number(a.literal);
    } else if (a.kind == ReplValue::Kind::kAttrVar) {
      if (schema.attrs[i].type != AttrType::kInts && schema.attrs[i].type != AttrType::kFloats) {
        out.numbers[i] = attr_var(a.index);
      }
    } else if (a.kind == ReplValue::Kind::kNone) {
      if (schema.attrs[i].has_default) out.numbers[i] = attr_number(schema.attrs[i].default_value);
    } else if (tensors_ && (a.kind == ReplValue::Kind::kDimList || a.kind == ReplValue::Kind::kSymbol)) {
      continue;  // taken item by item below
    } else {
      throw Outside{"a replacement attribute computed from the match"};
    }
  }
  out.literal = [&schema, value](size_t i) -> std::optional<AttrValue> {
    const ReplValue a = value(i);
    if (a.kind == ReplValue::Kind::kLiteral) return a.literal;
    if (a.kind == ReplValue::Kind::kNone && schema.attrs[i].has_default) {
      return schema.attrs[i].default_value;
    }
    return std::nullopt;
  };
  auto item_int = [this](const ReplValue& a) -> z3::expr {
    switch (a.kind) {
      case ReplValue::Kind::kScalar: return ctx_.int_val(whole_number(a.scalar.value));
      case ReplValue::Kind::kAttrVar: return int_var(a.index);
      case ReplValue::Kind::kSymbol: return symbol(a.index);
      default: throw Outside{"a replacement attribute computed from the match"};
    }
  };
  out.integer = [this, value, &schema, item_int](size_t i) -> z3::expr {
    const ReplValue a = value(i);
    if (a.kind == ReplValue::Kind::kLiteral) return ctx_.int_val(literal_int(a.literal));
    if (a.kind == ReplValue::Kind::kNone && schema.attrs[i].has_default) {
      return ctx_.int_val(literal_int(schema.attrs[i].default_value));
    }
    return item_int(a);
  };
  out.int_list = [this, value, &schema, item_int](size_t i) -> std::optional<std::vector<z3::expr>> {
    const ReplValue a = value(i);
    std::optional<std::vector<int64_t>> literal;
    if (a.kind == ReplValue::Kind::kLiteral) literal = literal_ints(a.literal);
    if (a.kind == ReplValue::Kind::kNone && schema.attrs[i].has_default) {
      literal = literal_ints(schema.attrs[i].default_value);
    }
    if (literal) {
      std::vector<z3::expr> items;
      for (int64_t v : *literal) items.push_back(ctx_.int_val(v));
      return items;
    }
    if (a.kind == ReplValue::Kind::kDimList) {
      std::vector<z3::expr> items;
      for (const ReplValue& item : a.items) items.push_back(item_int(item));
      return items;
    }
    if (a.kind == ReplValue::Kind::kAttrVar) return list_choice(a.index);
    return std::nullopt;
  };
  out.opaque_list = [this, value](size_t i) -> z3::expr {
    const ReplValue a = value(i);
    const z3::sort sizes = ctx_.uninterpreted_sort("Sizes");
    if (a.kind == ReplValue::Kind::kAttrVar) {
      return ctx_.constant(("$" + rule_.attr_var_names[a.index]).c_str(), sizes);
    }
    throw Outside{"a list attribute the prover cannot compare"};
  };
  return out;
}

Tensor RuleTerms::repl_value(const ReplValue& v) {
  switch (v.kind) {
    case ReplValue::Kind::kValue: return value_of(v.value);
    case ReplValue::Kind::kResult: return repl_op(v.index);
    case ReplValue::Kind::kScalar: return TensorAlgebra::scalar(number(v.scalar.value));
    case ReplValue::Kind::kAttrVar: return TensorAlgebra::scalar(attr_var(v.index));
    default: throw Outside{"a replacement value other than an op, a binding or a number"};
  }
}

Tensor RuleTerms::repl_op(uint32_t index) {
  if (auto it = results_.find(index); it != results_.end()) return it->second;
  const ReplOp& op = rule_.replacement[index];
  std::vector<std::optional<Tensor>> operands;
  for (const ReplValue& v : op.operands) {
    operands.push_back(v.kind == ReplValue::Kind::kNone ? std::nullopt
                                                        : std::optional<Tensor>(repl_value(v)));
  }
  const bool was_replacement = in_replacement_;
  in_replacement_ = true;
  Tensor t = apply(*op.schema, operands, replacement_attrs(op));
  in_replacement_ = was_replacement;
  results_.emplace(index, t);
  return t;
}

}  // namespace graft::ruletest
