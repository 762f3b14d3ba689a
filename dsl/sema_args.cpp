// Sema of call arguments: binding them to an op schema Python-style (positional in signature
// order, then keywords), the checks of each operand and attribute slot, `$` variables and
// their types, and shape inference of test-graph calls through the schema's shape function.
#include <algorithm>
#include <cmath>

#include "dsl/sema_internal.h"
#include "engine/support/edit_distance.h"

namespace graft::dsl::detail {
namespace {

using namespace ast;

std::vector<std::string> param_names(const OpSchema& s) {
  std::vector<std::string> names;
  for (const OperandSpec& o : s.operands) names.push_back(o.name);
  for (const AttrSpec& a : s.attrs) names.push_back(a.name);
  return names;
}

}  // namespace

ArgBinding bind_args(const CallExpr& call, const OpSchema& s, Mode mode) {
  ArgBinding b;
  b.operands.assign(s.operands.size(), nullptr);
  b.attrs.assign(s.attrs.size(), nullptr);
  size_t positional = 0;
  size_t positional_total = 0;
  for (const Arg* a : call.args) positional_total += a->keyword == nullptr ? 1 : 0;
  bool seen_keyword = false;
  for (const Arg* a : call.args) {
    const Arg** slot = nullptr;
    std::string name;
    if (a->keyword == nullptr) {
      if (seen_keyword) {
        b.errors.push_back({a->range, "positional argument after a keyword argument", {}, {}});
        continue;
      }
      if (positional >= s.params.size()) {
        if (positional++ == s.params.size()) {
          b.errors.push_back({a->range,
                              "too many arguments for '" + s.name + "': expected at most " +
                                  std::to_string(s.params.size()) + ", got " +
                                  std::to_string(positional_total),
                              {},
                              {}});
        }
        continue;
      }
      const graft::Param& p = s.params[positional++];
      name = p.is_operand ? s.operands[p.index].name : s.attrs[p.index].name;
      slot = p.is_operand ? &b.operands[p.index] : &b.attrs[p.index];
    } else {
      seen_keyword = true;
      name = std::string(a->keyword->text);
      int oi = s.operand_index(name);
      int ai = s.attr_index(name);
      if (oi < 0 && ai < 0) {
        b.errors.push_back({a->keyword->range,
                            "'" + s.name + "' has no parameter '" + name + "'" +
                                did_you_mean(name, param_names(s)),
                            {},
                            {}});
        continue;
      }
      slot = oi >= 0 ? &b.operands[static_cast<size_t>(oi)] : &b.attrs[static_cast<size_t>(ai)];
    }
    if (*slot != nullptr) {
      b.errors.push_back({a->range, "parameter '" + name + "' of '" + s.name + "' is given twice",
                          (*slot)->range, "first given here"});
      continue;
    }
    *slot = a;
  }
  for (size_t i = 0; i < s.operands.size(); ++i) {
    const OperandSpec& spec = s.operands[i];
    if (b.operands[i] != nullptr || spec.optional) continue;
    b.errors.push_back({call.range,
                        "missing operand '" + spec.name + "' of '" + s.name + "'" +
                            (mode == Mode::kPattern ? " (write '_' to match any value)" : ""),
                        {},
                        {}});
  }
  if (mode != Mode::kPattern) {
    for (size_t i = 0; i < s.attrs.size(); ++i) {
      const AttrSpec& spec = s.attrs[i];
      if (b.attrs[i] != nullptr || spec.has_default || spec.nullable) continue;
      b.errors.push_back(
          {call.range, "missing attribute '" + spec.name + "' of '" + s.name + "'", {}, {}});
    }
  }
  return b;
}

namespace {

bool is_number_type(AttrType t) {
  return t == AttrType::kInt || t == AttrType::kFloat || t == AttrType::kScalar;
}

/// Whether a `$` variable holding values of `from` may be used where `to` is expected
/// (nullopt: a scalar operand).
bool attr_var_fits(const std::optional<AttrSpec>& from, const std::optional<AttrSpec>& to) {
  if (!from || !to) {
    const std::optional<AttrSpec>& other = from ? from : to;
    return !other || is_number_type(other->type);
  }
  if (from->type == to->type) {
    return from->fixed_length == 0 || to->fixed_length == 0 ||
           from->fixed_length == to->fixed_length;
  }
  if (is_number_type(from->type) && is_number_type(to->type)) {
    return !(to->type == AttrType::kInt && from->type != AttrType::kInt);
  }
  return from->type == AttrType::kInts && to->type == AttrType::kFloats;
}

std::string var_type(const std::optional<AttrSpec>& spec) {
  return spec ? spec_type_name(*spec) : "a scalar operand";
}
}  // namespace

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kPattern:
      return "pattern";
    case Mode::kReplacement:
      return "replacement";
    case Mode::kGraph:
      return "test graph";
  }
  return "block";
}

/// "a string", "a list", … for messages about misplaced expressions.
std::string describe(const Expr& e) {
  switch (e.kind) {
    case NodeKind::kString:
      return "a string";
    case NodeKind::kBool:
      return "a bool";
    case NodeKind::kList:
      return "a list";
    case NodeKind::kSet:
      return "a set";
    case NodeKind::kRange:
      return "a range";
    case NodeKind::kEllipsis:
      return "'...'";
    default:
      return "an expression";
  }
}

std::string spec_type_name(const AttrSpec& spec) {
  std::string name = attr_type_name(spec.type);
  if (spec.fixed_length > 0 && (spec.type == AttrType::kInts || spec.type == AttrType::kFloats)) {
    name = name.substr(0, name.size() - 2) + "[" + std::to_string(spec.fixed_length) + "]";
  }
  return name;
}

std::string param_desc(const std::string& param, const OpSchema& schema) {
  return "'" + param + "' of '" + schema.name + "'";
}

/// Checks a value against the operand slot it binds to; returns false after reporting.
bool check_operand_slot(Sema& sema, const Expr* e, const ValueResult& r, const OpSchema& s,
                        const OperandSpec& spec, Mode mode) {
  std::string desc = "operand '" + spec.name + "' of '" + s.name + "'";
  switch (r.kind) {
    case ValueKind::kTensor:
    case ValueKind::kAny:
    case ValueKind::kError:
      return true;
    case ValueKind::kNone:
      if (spec.optional) return true;
      sema.error(e->range, desc + " cannot be 'none'");
      return false;
    case ValueKind::kMaybeNone:
      if (spec.optional) return true;
      sema.error(e->range,
                 "'" + std::string(static_cast<const NameExpr*>(e)->name) + "' may be none, but " +
                     desc + " is required" +
                     (mode == Mode::kReplacement ? " (use '?\?' to give a default)" : ""));
      return false;
    case ValueKind::kScalar:
    case ValueKind::kTensorOrScalar:
      if (spec.allow_scalar) return true;
      sema.error(e->range, desc + " must be a tensor, not a number");
      return false;
    case ValueKind::kOther:
      sema.error(e->range, desc + " must be a tensor, not " + describe(*e));
      return false;
  }
  return true;
}

void check_tolerance(Sema& sema, const ToleranceExpr* t) {
  if (t->tolerance->float_value < 0) {
    sema.error(t->tolerance->range, "tolerance must be a non-negative number, got '" +
                                        std::string(t->tolerance->spelling) + "'");
  }
}

void Sema::check_attr_var(const AttrVarExpr* var, const std::optional<AttrSpec>& spec,
                          const std::string& source, Env& env) {
  std::string name = "$" + std::string(var->name);
  if (env.attr_vars == nullptr) {
    error(var->range, "'" + name + "' cannot be used in a " + mode_name(env.mode));
    return;
  }
  auto it = env.attr_vars->find(var->name);
  if (env.mode == Mode::kPattern) {
    if (it == env.attr_vars->end()) {
      env.attr_vars->emplace(std::string(var->name), AttrVar{var->range, source, spec, 1, 0});
      return;
    }
    ++it->second.bindings;
    if (!attr_var_fits(it->second.spec, spec) && !attr_var_fits(spec, it->second.spec)) {
      Diagnostic& d = error(var->range, "'" + name + "' is bound to " + it->second.source + " (" +
                                            var_type(it->second.spec) + ") and to " + source +
                                            " (" + var_type(spec) + ")");
      note(d, it->second.first, "'" + name + "' is first bound here");
    }
    return;
  }
  if (it == env.attr_vars->end()) {
    if (env.pattern_failed) return;
    std::vector<std::string> bound;
    for (const auto& [key, value] : *env.attr_vars) bound.push_back("$" + key);
    error(var->range, "'" + name + "' is not bound by the pattern" + did_you_mean(name, bound));
    return;
  }
  ++it->second.uses;
  if (!attr_var_fits(it->second.spec, spec)) {
    Diagnostic& d = error(var->range, "'" + name + "' holds " + it->second.source + " (" +
                                          var_type(it->second.spec) + "), which does not fit " +
                                          source + " (" + var_type(spec) + ")");
    note(d, it->second.first, "'" + name + "' is bound here");
  }
}

void Sema::check_attr_arg(const Arg* arg, const OpSchema& s, const AttrSpec& spec, Env& env) {
  std::string desc = param_desc(spec.name, s);
  const Expr* v = arg->value;
  std::string err;
  if (arg->is_in) {
    if (env.mode != Mode::kPattern) {
      error(arg->range, "'in' constraints are only allowed in a pattern");
      return;
    }
    if (const auto* set = dyn_cast<SetExpr>(v)) {
      for (const Expr* item : set->items) {
        std::optional<AttrValue> value = literal_value(item);
        if (!value) {
          error(item->range, "the values of " + desc + " must be literals");
        } else if (!coerce_attr(spec, *value, &err)) {
          error(item->range, "bad value for " + desc + ": " + err);
        }
      }
      return;
    }
    const auto* range = static_cast<const RangeExpr*>(v);
    if (!is_number_type(spec.type)) {
      error(v->range,
            "a range needs a number attribute, but " + desc + " is " + spec_type_name(spec));
    } else if (range->lo->float_value > range->hi->float_value) {
      error(v->range, "empty range: " + std::string(range->lo->spelling) + " is greater than " +
                          std::string(range->hi->spelling));
    } else if (spec.type == AttrType::kInt && (!range->lo->is_int || !range->hi->is_int)) {
      error(v->range, "the bounds of a range for " + desc + " (int) must be integers");
    }
    return;
  }
  switch (v->kind) {
    case NodeKind::kWildcard:
      if (env.mode != Mode::kPattern) error(v->range, "'_' can only be used in a pattern");
      return;
    case NodeKind::kAttrVar:
      check_attr_var(static_cast<const AttrVarExpr*>(v), spec, desc, env);
      return;
    case NodeKind::kCall:
      if (!is_op_name_call(v, registry_)) break;
      if (env.mode == Mode::kReplacement) {
        check_op_name_attr(static_cast<CallExpr*>(arg->value), s, spec, env);
      } else {
        reject_op_name(static_cast<CallExpr*>(arg->value));
      }
      return;
    case NodeKind::kTolerance:
      if (env.mode != Mode::kPattern) {
        error(v->range, "a tolerance '~' is only allowed in a pattern");
      } else if (spec.type != AttrType::kFloat && spec.type != AttrType::kScalar) {
        error(v->range,
              "a tolerance needs a float attribute, but " + desc + " is " + spec_type_name(spec));
      } else {
        check_tolerance(*this, static_cast<const ToleranceExpr*>(v));
      }
      return;
    default:
      break;
  }
  if (check_list_with_vars(v, spec, desc, env)) return;
  if (env.mode == Mode::kReplacement && check_dim_symbol_attr(v, spec, desc, env)) return;
  std::optional<AttrValue> value = literal_value(v);
  if (!value) {
    error(v->range,
          desc + " is an attribute: expected a literal" +
              (env.mode == Mode::kPattern ? ", a '$' variable or '_'"
               : env.mode == Mode::kReplacement
                   ? (spec.type == AttrType::kString ? ", a '$' variable or 'op_name(...)'"
                                                     : " or a '$' variable")
                   : ""));
    return;
  }
  if (!coerce_attr(spec, *value, &err)) error(v->range, "bad value for " + desc + ": " + err);
}

bool Sema::check_list_with_vars(const Expr* v, const AttrSpec& spec, const std::string& desc,
                                Env& env) {
  if (!is_list_with_vars(v)) return false;
  const auto* list = static_cast<const ListExpr*>(v);
  if (spec.type != AttrType::kInts && spec.type != AttrType::kFloats) {
    error(v->range, desc + " is " + spec_type_name(spec) + ", not a list of numbers");
    return true;
  }
  if (env.mode == Mode::kReplacement && spec.type == AttrType::kFloats) {
    error(v->range, "'$' items in a float list such as " + desc + " are not supported in a " +
                        "replacement yet; bind the whole list");
    return true;
  }
  if (spec.fixed_length > 0 && list->items.size() != static_cast<size_t>(spec.fixed_length)) {
    error(v->range, desc + " has " + std::to_string(spec.fixed_length) + " items, not " +
                        std::to_string(list->items.size()));
    return true;
  }
  AttrSpec item_spec;  // what one item holds: a `$` item is bound to and used as this
  item_spec.name = spec.name;
  item_spec.type = spec.type == AttrType::kInts ? AttrType::kInt : AttrType::kFloat;
  for (const Expr* item : list->items) {
    if (item->kind == NodeKind::kWildcard) {
      if (env.mode != Mode::kPattern) error(item->range, "'_' can only be used in a pattern");
    } else if (const auto* var = dyn_cast<AttrVarExpr>(item)) {
      check_attr_var(var, item_spec, "an item of " + desc, env);
      if (env.mode == Mode::kReplacement && env.attr_vars != nullptr) {
        auto it = env.attr_vars->find(var->name);
        // A scalar operand's variable fits a number (check_attr_var), but may hold a float.
        if (it != env.attr_vars->end() && !it->second.spec) {
          error(var->range, "'$" + std::string(var->name) + "' is bound to " + it->second.source +
                                ", which may be a float: it cannot be an item of " + desc +
                                " (ints)");
        }
      }
    } else if (const auto* n = dyn_cast<NumberExpr>(item)) {
      if (spec.type == AttrType::kInts && !n->is_int) {
        error(item->range, "the items of " + desc + " are ints, got '" +
                               std::string(n->spelling) + "'");
      }
    } else {
      error(item->range, "an item of " + desc + " must be a number, a '$' variable" +
                             (env.mode == Mode::kPattern ? " or '_'" : ""));
    }
  }
  return true;
}

bool Sema::check_dim_symbol_attr(const Expr* v, const AttrSpec& spec, const std::string& desc,
                                 Env& env) {
  const auto* list = dyn_cast<ListExpr>(v);
  std::vector<const Expr*> items;
  if (list != nullptr) {
    items.assign(list->items.begin(), list->items.end());
  } else {
    items.push_back(v);
  }
  if (std::none_of(items.begin(), items.end(),
                   [](const Expr* e) { return e->kind == NodeKind::kName; })) {
    return false;  // no symbol: a literal (or not), checked as one
  }
  const AttrType wanted = list != nullptr ? AttrType::kInts : AttrType::kInt;
  if (spec.type != wanted) {
    error(v->range, desc + " is " + spec_type_name(spec) + ", but a dim symbol is an int" +
                        (list != nullptr ? " (a list of them is int[])" : ""));
    return true;
  }
  for (const Expr* item : items) {
    if (const auto* name = dyn_cast<NameExpr>(item)) {
      if (env.dim_symbols.count(name->name) == 0) {
        std::vector<std::string> known(env.dim_symbols.begin(), env.dim_symbols.end());
        error(item->range, "'" + std::string(name->name) +
                               "' is not a dim symbol of a where condition (bind it with, "
                               "e.g., dim(x, -1) == " + std::string(name->name) + ")" +
                               did_you_mean(name->name, known));
      }
      continue;
    }
    const auto* n = dyn_cast<NumberExpr>(item);
    if (n == nullptr || !n->is_int) {
      error(item->range, "the items of " + desc + " must be integers or dim symbols");
    }
  }
  return true;
}

std::optional<TensorType> Sema::infer(SourceRange range, const BoundCall& bound,
                                      const std::vector<ValueResult>& operands,
                                      const std::vector<ValueResult>& variadic_items) {
  const OpSchema& s = *bound.schema;
  if (s.infer == nullptr) return std::nullopt;
  InferInputs in;
  in.schema = &s;
  std::vector<AttrValue> attrs;
  auto add_input = [&](const ValueResult& v) {
    if (v.kind == ValueKind::kNone) {
      in.operand_types.push_back(nullptr);
      in.scalars.push_back(std::nullopt);
    } else if (v.kind == ValueKind::kScalar) {
      in.operand_types.push_back(nullptr);
      in.scalars.push_back(v.scalar);
    } else if (v.type) {
      in.operand_types.push_back(&*v.type);
      in.scalars.push_back(std::nullopt);
    } else {
      return false;  // an input without a known type: nothing to infer
    }
    return true;
  };
  for (size_t i = 0; i < s.operands.size(); ++i) {
    if (s.operands[i].variadic) {
      in.variadic_begin = in.operand_types.size();
      for (const ValueResult& item : variadic_items) {
        if (!add_input(item)) return std::nullopt;
      }
    } else if (i >= operands.size() || !add_input(operands[i])) {
      return std::nullopt;
    }
  }
  for (size_t i = 0; i < s.attrs.size(); ++i) {
    const AttrSpec& spec = s.attrs[i];
    const Arg* arg = i < bound.attrs.size() ? bound.attrs[i] : nullptr;
    std::optional<AttrValue> value;
    std::string err;
    if (arg != nullptr) {
      std::optional<AttrValue> literal = literal_value(arg->value);
      if (literal) value = coerce_attr(spec, *literal, &err);
    } else if (spec.has_default) {
      value = spec.default_value;
    } else if (spec.nullable) {
      value = AttrValue{};
    }
    if (!value) return std::nullopt;
    attrs.push_back(*value);
  }
  in.attrs = attrs;
  std::string err;
  std::optional<TensorType> type = s.infer(in, &err);
  if (!type) error(range, "'" + s.name + "' rejects its inputs: " + err);
  if (type) count_test_tensor(range, *type);  // inference runs for test graphs only
  return type;
}

}  // namespace graft::dsl::detail
