// Sema of values and op calls, shared by patterns, replacements and test graphs: names,
// literals, arithmetic (desugared to add/sub/mul/div/neg), callee resolution (ops, op classes,
// alternatives) and the checks each mode allows. Argument binding and slot checks are in
// sema_args.cpp.
#include <algorithm>

#include "dsl/sema_internal.h"
#include "engine/support/edit_distance.h"

namespace graft::dsl::detail {
namespace {

using namespace ast;

/// Names, calls and arithmetic: what can hide errors inside an argument we cannot bind.
bool is_value_expr(const Expr* e) {
  return e->kind == NodeKind::kName || e->kind == NodeKind::kCall || e->kind == NodeKind::kBinary ||
         e->kind == NodeKind::kUnary;
}
}  // namespace

bool Sema::expect_tensor(const Expr* e, const ValueResult& r, const std::string& what_for) {
  switch (r.kind) {
    case ValueKind::kTensor:
      return true;
    case ValueKind::kError:
      return false;
    case ValueKind::kScalar:
    case ValueKind::kTensorOrScalar:
      error(e->range, what_for + " must be a tensor, not a number");
      return false;
    case ValueKind::kNone:
      error(e->range, what_for + " cannot be 'none'");
      return false;
    case ValueKind::kMaybeNone:
      error(e->range, what_for + " must be a tensor, but '" +
                          std::string(static_cast<const NameExpr*>(e)->name) + "' may be none");
      return false;
    case ValueKind::kAny:
      error(e->range, what_for + " cannot be '_'");
      return false;
    case ValueKind::kOther:
      error(e->range, what_for + " must be a tensor, not " + describe(*e));
      return false;
  }
  return false;
}

ValueResult Sema::check_value(Expr* e, Env& env) {
  ValueResult r;
  switch (e->kind) {
    case NodeKind::kName: {
      auto* n = static_cast<NameExpr*>(e);
      Binding* b = env.scope->find(n->name);
      if (b == nullptr) {
        if (n->name == "_") {
          error(n->range, "'_' can only be used in a pattern");
        } else {
          error(n->range, "use of undeclared name '" + std::string(n->name) + "'" +
                              did_you_mean(n->name, env.scope->names()));
        }
        return r;
      }
      ++b->uses;
      n->decl = b->decl;
      r.kind = b->optional ? ValueKind::kMaybeNone : ValueKind::kTensor;
      r.is_const = b->is_const;
      if (!r.is_const) r.non_const = n;
      r.type = b->type;
      return r;
    }
    case NodeKind::kAttrVar:
      check_attr_var(static_cast<AttrVarExpr*>(e), std::nullopt, "a scalar operand", env);
      r.kind = ValueKind::kScalar;
      r.is_const = true;
      return r;
    case NodeKind::kWildcard:
      if (env.mode != Mode::kPattern) {
        error(e->range, "'_' can only be used in a pattern");
        return r;
      }
      r.kind = ValueKind::kAny;
      return r;
    case NodeKind::kNone:
      r.kind = ValueKind::kNone;
      r.is_const = true;
      return r;
    case NodeKind::kNumber: {
      const auto* n = static_cast<const NumberExpr*>(e);
      r.kind = ValueKind::kScalar;
      r.is_const = true;
      r.scalar = Scalar{n->float_value, n->is_int};
      return r;
    }
    case NodeKind::kTolerance:
      if (env.mode != Mode::kPattern) {
        error(e->range, "a tolerance '~' is only allowed in a pattern");
        return r;
      }
      check_tolerance(*this, static_cast<const ToleranceExpr*>(e));
      r.kind = ValueKind::kScalar;
      r.is_const = true;
      return r;
    case NodeKind::kCall:
      return check_call(static_cast<CallExpr*>(e), env);
    case NodeKind::kBinary:
      return check_binary(static_cast<BinaryExpr*>(e), env);
    case NodeKind::kUnary:
      return check_unary(static_cast<UnaryExpr*>(e), env);
    default:
      r.kind = ValueKind::kOther;
      return r;
  }
}

const OpSchema* Sema::arithmetic_op(const char* name, SourceRange range) {
  const OpSchema* s = registry_.find(name);
  if (s == nullptr)
    error(range, std::string("this operator needs the op '") + name +
                     "', which the op registry does not define");
  return s;
}

ValueResult Sema::check_binary(BinaryExpr* e, Env& env) {
  ValueResult result;
  if (e->op == BinaryOp::kCoalesce) {
    ValueResult l = check_value(e->lhs, env);
    ValueResult r = check_value(e->rhs, env);
    if (env.mode != Mode::kReplacement) {
      error(e->op_range, "'?\?' is only allowed in a replacement");
      return result;
    }
    if (l.kind != ValueKind::kError && l.kind != ValueKind::kMaybeNone) {
      error(e->lhs->range,
            "the left side of '?\?' must be an optional pattern parameter such as 'b?'");
      return result;
    }
    if (r.kind != ValueKind::kError && r.kind != ValueKind::kTensor &&
        r.kind != ValueKind::kScalar) {
      error(e->rhs->range, "the right side of '?\?' must be a tensor or a number");
      return result;
    }
    if (l.kind == ValueKind::kError || r.kind == ValueKind::kError) return result;
    result.kind = r.kind == ValueKind::kScalar ? ValueKind::kTensorOrScalar : ValueKind::kTensor;
    result.is_const = l.is_const && r.is_const;
    result.non_const = l.non_const != nullptr ? l.non_const : r.non_const;
    return result;
  }
  static constexpr const char* kOps[] = {"add", "sub", "mul", "div"};
  const OpSchema* s = arithmetic_op(kOps[static_cast<int>(e->op)], e->op_range);
  ValueResult l = check_value(e->lhs, env);
  ValueResult r = check_value(e->rhs, env);
  if (s == nullptr || s->operands.size() < 2) return result;
  e->schema = s;
  if (env.mode == Mode::kPattern) ++env.op_count;
  bool ok = check_operand_slot(*this, e->lhs, l, *s, s->operands[0], env.mode);
  ok = check_operand_slot(*this, e->rhs, r, *s, s->operands[1], env.mode) && ok;
  if (l.kind == ValueKind::kError || r.kind == ValueKind::kError || !ok) return result;
  if (l.kind == ValueKind::kScalar && r.kind == ValueKind::kScalar) {
    error(e->op_range, std::string("'") + binary_op_spelling(e->op) +
                           "' needs a tensor operand; both sides are numbers");
    return result;
  }
  result.kind = ValueKind::kTensor;
  result.is_const = l.is_const && r.is_const;
  result.non_const = l.non_const != nullptr ? l.non_const : r.non_const;
  if (env.mode == Mode::kGraph) {
    result.type = infer(e->range, BoundCall{s, {}, {}}, {l, r}, {});
  }
  return result;
}

ValueResult Sema::check_unary(UnaryExpr* e, Env& env) {
  ValueResult result;
  const OpSchema* s = arithmetic_op("neg", e->range);
  ValueResult v = check_value(e->operand, env);
  if (s == nullptr || s->operands.empty()) return result;
  e->schema = s;
  if (env.mode == Mode::kPattern) ++env.op_count;
  if (!check_operand_slot(*this, e->operand, v, *s, s->operands[0], env.mode) ||
      v.kind == ValueKind::kError) {
    return result;
  }
  if (v.kind == ValueKind::kScalar) {
    error(e->range, "'-' needs a tensor operand here; write the negative number directly");
    return result;
  }
  result = v;
  result.kind = ValueKind::kTensor;
  if (env.mode == Mode::kGraph) {
    result.type = infer(e->range, BoundCall{s, {}, {}}, {v}, {});
  }
  return result;
}

ValueResult Sema::check_fold(CallExpr* call, Env& env) {
  ValueResult r;
  call->is_fold = true;
  if (env.mode != Mode::kReplacement) {
    error(call->callee_range, "'fold' is only allowed in a replacement");
    return r;
  }
  if (call->args.size() != 1 || call->args[0]->keyword != nullptr) {
    error(call->range, "'fold' takes exactly one expression");
    return r;
  }
  r = check_value(call->args[0]->value, env);
  if (!expect_tensor(call->args[0]->value, r, "the argument of 'fold'")) return ValueResult{};
  if (!r.is_const && r.non_const != nullptr) {
    Diagnostic& d = error(call->args[0]->value->range, "'fold' needs a constant expression, but '" +
                                                           std::string(r.non_const->name) +
                                                           "' is not constant");
    if (r.non_const->decl != nullptr && r.non_const->decl->kind == NodeKind::kParam) {
      note(d, r.non_const->decl->range,
           "declare it constant with 'where const(" + std::string(r.non_const->name) + ")'");
    }
    return ValueResult{};
  }
  return r;
}

std::vector<const OpSchema*> Sema::resolve_callee(const CallExpr* call, Env& env) {
  std::vector<const OpSchema*> ops;
  bool ok = true;
  for (const Ident* id : call->ops) {
    if (const OpSchema* s = registry_.find(id->text)) {
      ops.push_back(s);
      continue;
    }
    std::vector<const OpSchema*> members;
    if (auto it = opclass_ops_.find(id->text); it != opclass_ops_.end()) {
      members = it->second;
    } else {
      members = registry_.op_class(id->text);
    }
    if (members.empty()) {
      std::vector<std::string> candidates = registry_.names();
      for (const auto& [name, decl] : opclasses_) candidates.push_back(name);
      for (const std::string& cls : registry_.class_names()) candidates.push_back(cls);
      error(id->range,
            "unknown op '" + std::string(id->text) + "'" + did_you_mean(id->text, candidates));
      ok = false;
      continue;
    }
    if (env.mode != Mode::kPattern) {
      error(id->range, "'" + std::string(id->text) + "' is an op class; a " + mode_name(env.mode) +
                           " must name one op");
      ok = false;
      continue;
    }
    ops.insert(ops.end(), members.begin(), members.end());
  }
  if (call->ops.size() > 1 && env.mode != Mode::kPattern) {
    error(call->callee_range, "op alternatives are only allowed in a pattern");
    ok = false;
  }
  if (call->ordered && env.mode != Mode::kPattern) {
    error(call->range, "'ordered' is only allowed in a pattern");
    ok = false;
  }
  if (!ok) return {};
  // An op named twice (directly and through a class) is one alternative.
  std::vector<const OpSchema*> unique;
  for (const OpSchema* s : ops) {
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
  }
  if (call->ordered && std::none_of(unique.begin(), unique.end(),
                                    [](const OpSchema* s) { return s->commutative; })) {
    warning(call->callee_range,
            "'ordered' has no effect: '" + unique.front()->name + "' is not commutative");
  }
  return unique;
}

bool Sema::bind_alternatives(const CallExpr* call, const std::vector<const OpSchema*>& ops,
                             Mode mode, std::vector<ArgBinding>& bindings) {
  bool ok = true;
  for (size_t k = 0; k < ops.size(); ++k) {
    bindings.push_back(bind_args(*call, *ops[k], mode));
    const std::vector<BindError>& errors = bindings.back().errors;
    // Alternatives: the first one reports everything, the others their first problem only.
    for (size_t i = 0; i < errors.size() && (k == 0 || i == 0); ++i) {
      std::string prefix = ops.size() > 1 && k > 0 ? "alternative '" + ops[k]->name + "': " : "";
      Diagnostic& d = error(errors[i].range, prefix + errors[i].message);
      if (!errors[i].note.empty()) note(d, errors[i].note_range, errors[i].note);
    }
    ok = ok && errors.empty();
  }
  return ok;
}

bool Sema::check_call_attr(const Arg* a, size_t index, const std::vector<const OpSchema*>& ops,
                           const std::vector<ArgBinding>& bindings, Env& env) {
  check_attr_arg(a, *ops[0], ops[0]->attrs[index], env);
  // The other alternatives must read the argument as an attribute that accepts its value.
  for (size_t k = 1; k < ops.size(); ++k) {
    auto [is_operand, alt_index] = bindings[k].slot_of(a);
    if (alt_index == SIZE_MAX) continue;
    if (is_operand) {
      error(a->range, "this argument is an attribute of '" + ops[0]->name +
                          "' but an operand of '" + ops[k]->name + "'");
      return false;
    }
    std::optional<AttrValue> value = literal_value(a->value);
    std::string err;
    if (value && !a->is_in && !coerce_attr(ops[k]->attrs[alt_index], *value, &err)) {
      error(a->value->range,
            "bad value for " + param_desc(ops[k]->attrs[alt_index].name, *ops[k]) + ": " + err);
      return false;
    }
  }
  return true;
}

bool Sema::check_call_operand(Arg* a, size_t index, const std::vector<const OpSchema*>& ops,
                              const std::vector<ArgBinding>& bindings, Env& env, ValueResult& v,
                              std::vector<ValueResult>& variadic_items) {
  const OperandSpec& spec = ops[0]->operands[index];
  if (a->is_in) {
    error(a->range, "'in' constraints apply to attributes, and '" + spec.name + "' of '" +
                        ops[0]->name + "' is an operand");
    return false;
  }
  if (spec.variadic) {
    auto* list = dyn_cast<ListExpr>(a->value);
    if (list == nullptr) {
      v = check_value(a->value, env);
      if (v.kind == ValueKind::kAny || v.kind == ValueKind::kError)
        return v.kind == ValueKind::kAny;
      error(a->value->range, "operand '" + spec.name + "' of '" + ops[0]->name +
                                 "' takes a list of values such as '[a, b]'");
      return false;
    }
    OperandSpec item_spec = spec;
    item_spec.variadic = false;
    bool ok = true;
    v.kind = ValueKind::kTensor;
    v.is_const = true;
    for (Expr* item : list->items) {
      ValueResult iv = check_value(item, env);
      ok = check_operand_slot(*this, item, iv, *ops[0], item_spec, env.mode) && ok;
      ok = ok && iv.kind != ValueKind::kError;
      if (!iv.is_const && v.is_const) {
        v.is_const = false;
        v.non_const = iv.non_const;
      }
      variadic_items.push_back(iv);
    }
    return ok;
  }
  v = check_value(a->value, env);
  for (size_t k = 0; k < ops.size(); ++k) {
    auto [is_operand, alt_index] = bindings[k].slot_of(a);
    if (alt_index == SIZE_MAX) continue;
    if (!is_operand) {
      error(a->range, "this argument is an operand of '" + ops[0]->name +
                          "' but an attribute of '" + ops[k]->name + "'");
      return false;
    }
    if (!check_operand_slot(*this, a->value, v, *ops[k], ops[k]->operands[alt_index], env.mode)) {
      return false;
    }
  }
  return v.kind != ValueKind::kError;
}

ValueResult Sema::check_call(CallExpr* call, Env& env) {
  if (call->ops.size() == 1 && call->ops[0]->text == "fold" && registry_.find("fold") == nullptr) {
    return check_fold(call, env);
  }
  if (is_op_name_call(call, registry_)) {
    reject_op_name(call);  // as an attribute value, check_attr_arg handles it
    return {};
  }
  std::vector<const OpSchema*> ops = resolve_callee(call, env);
  std::vector<ArgBinding> bindings;
  if (ops.empty() || !bind_alternatives(call, ops, env.mode, bindings)) {
    // Still look inside the arguments, so every error of the file is reported in one run.
    for (Arg* a : call->args) {
      if (is_value_expr(a->value) && !is_op_name_call(a->value, registry_)) {
        check_value(a->value, env);
      }
    }
    return {};
  }
  if (env.mode == Mode::kPattern) ++env.op_count;

  ValueResult result;
  result.kind = ValueKind::kTensor;
  result.is_const = true;
  ValueResult absent;
  absent.kind = ValueKind::kNone;
  std::vector<ValueResult> operands(ops[0]->operands.size(), absent);
  std::vector<ValueResult> variadic_items;
  bool ok = true;
  for (Arg* a : call->args) {
    auto [is_operand, index] = bindings[0].slot_of(a);
    if (!is_operand) {
      ok = check_call_attr(a, index, ops, bindings, env) && ok;
      continue;
    }
    ValueResult v;
    ok = check_call_operand(a, index, ops, bindings, env, v, variadic_items) && ok;
    if (!v.is_const && v.kind != ValueKind::kNone && result.is_const) {
      result.is_const = false;
      result.non_const = v.non_const;
    }
    operands[index] = v;
  }
  if (!ok) return {};

  std::vector<BoundCall> bound;
  for (size_t k = 0; k < ops.size(); ++k) {
    bound.push_back({ops[k], ctx_.copy(bindings[k].operands), ctx_.copy(bindings[k].attrs)});
  }
  call->bound = ctx_.copy(bound);
  if (env.mode == Mode::kGraph)
    result.type = infer(call->range, call->bound[0], operands, variadic_items);
  return result;
}

}  // namespace graft::dsl::detail
