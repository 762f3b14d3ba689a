// Sema of `op_name(act)`: in a replacement, the value of a `str` attribute that is the name of
// the op the pattern value `act` matched, so that one rule over op alternatives or an op class
// can pass the matched op on (`act = (relu | silu)(c)` ... `activation=op_name(act)`). It is a
// built-in like `fold`, not grammar: anywhere else it is an error. The checks here are what make
// the name a faithful stand-in for the matched op: the attribute must accept every name `act`
// may have, and the pattern must match every attribute of those ops, since the name carries
// nothing else.
#include "dsl/sema_internal.h"

namespace graft::dsl::detail {
namespace {

using namespace ast;

/// "'a'", "'a' or 'b'", "'a', 'b' or 'c'"
std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("'" + names[i] + "'");
  }
  return out;
}

/// The attributes the pattern call leaves unmatched, per alternative: "'approximate' of
/// 'gelu'", "'min_val', 'max_val' of 'hardtanh'". `ops` receives the ops that have any.
std::vector<std::string> unmatched_attrs(const CallExpr& call, std::vector<std::string>* ops,
                                         size_t* attr_count) {
  std::vector<std::string> items;
  for (const BoundCall& alt : call.bound) {
    std::string attrs;
    for (size_t i = 0; i < alt.schema->attrs.size(); ++i) {
      if (i < alt.attrs.size() && alt.attrs[i] != nullptr) continue;
      attrs += (attrs.empty() ? "'" : ", '") + alt.schema->attrs[i].name + "'";
      ++*attr_count;
    }
    if (attrs.empty()) continue;
    items.push_back(attrs + " of '" + alt.schema->name + "'");
    ops->push_back(alt.schema->name);
  }
  return items;
}

/// The one op a pattern statement matches (a call of one op, or an operator such as `+`), or
/// nullptr (alternatives, or a statement sema rejected).
const OpSchema* single_op(const AssignStmt* assign) {
  if (assign == nullptr) return nullptr;
  if (const auto* call = dyn_cast<CallExpr>(assign->value)) {
    return call->bound.size() == 1 ? call->bound[0].schema : nullptr;
  }
  if (const auto* binary = dyn_cast<BinaryExpr>(assign->value)) return binary->schema;
  if (const auto* unary = dyn_cast<UnaryExpr>(assign->value)) return unary->schema;
  return nullptr;
}

}  // namespace

bool is_op_name_call(const Expr* e, const OpRegistry& registry) {
  const auto* call = dyn_cast<CallExpr>(e);
  return call != nullptr && call->ops.size() == 1 && call->ops[0]->text == "op_name" &&
         registry.find("op_name") == nullptr;
}

void Sema::reject_op_name(CallExpr* call) {
  call->is_op_name = true;
  error(call->callee_range,
        "'op_name' is only allowed as the value of a 'str' attribute in a replacement, as in "
        "'activation=op_name(act)'");
}

void Sema::check_op_name_attr(CallExpr* call, const OpSchema& schema, const AttrSpec& spec,
                              Env& env) {
  call->is_op_name = true;
  auto* name = call->args.size() == 1 && call->args[0]->keyword == nullptr
                   ? dyn_cast<NameExpr>(call->args[0]->value)
                   : nullptr;
  if (name == nullptr || call->ordered) {
    error(call->range, "'op_name' takes one value of the pattern, as in 'op_name(act)'");
    return;
  }
  if (spec.type != AttrType::kString) {
    error(call->range, "'op_name' gives the name of the op that matched, a str, but " +
                           param_desc(spec.name, schema) + " is " + spec_type_name(spec));
    return;
  }
  if (check_value(name, env).kind == ValueKind::kError) return;
  std::string text(name->name);
  const std::string wanted = "'op_name' needs a value the pattern matches with op alternatives "
                             "or an op class, as in 'act = (relu | tanh)(x)'";
  if (name->decl->kind == NodeKind::kParam) {
    error(name->range, "'" + text + "' is a pattern parameter; " + wanted);
    return;
  }
  if (env.scope->find_local(name->name) != nullptr) {
    error(name->range, "'" + text + "' is computed by the replacement; " + wanted);
    return;
  }
  const auto* assign = dyn_cast<AssignStmt>(name->decl);
  const auto* matched = assign != nullptr ? dyn_cast<CallExpr>(assign->value) : nullptr;
  if (matched == nullptr || matched->bound.size() == 1) {
    if (const OpSchema* only = single_op(assign)) {
      Diagnostic& d = error(name->range, "'" + text + "' always matches '" + only->name +
                                             "': write \"" + only->name +
                                             "\" instead of 'op_name(" + text + ")'");
      note(d, assign->value->range, "'" + text + "' is matched here");
    }
    return;  // otherwise the pattern statement's own error is reported
  }
  if (matched->bound.empty()) return;  // the pattern call's own error is reported

  std::vector<std::string> rejected;
  for (const BoundCall& alt : matched->bound) {
    std::string err;
    if (!coerce_attr(spec, AttrValue{alt.schema->name}, &err)) rejected.push_back(alt.schema->name);
  }
  if (!rejected.empty()) {
    Diagnostic& d = error(call->range, param_desc(spec.name, schema) + " does not accept " +
                                           one_of(rejected) + ", which '" + text +
                                           "' may match (it accepts " + quoted_list(spec.choices) +
                                           ")");
    note(d, matched->callee_range, "'" + text + "' is matched here");
  }
  std::vector<std::string> ops;
  size_t attr_count = 0;
  std::vector<std::string> unmatched = unmatched_attrs(*matched, &ops, &attr_count);
  if (!unmatched.empty()) {
    std::string items;
    for (size_t i = 0; i < unmatched.size(); ++i) {
      items += (i == 0 ? "" : i + 1 == unmatched.size() ? " and " : ", ") + unmatched[i];
    }
    std::string fix = ops.size() == 1 ? std::string(attr_count == 1 ? "it" : "them") +
                                            " in the call, or give '" + ops[0] +
                                            "' a rule of its own"
                                      : "them in the call, or give those ops a rule of their own";
    Diagnostic& d = error(call->range, "the pattern leaves " + items + " unmatched, and 'op_name(" +
                                           text + ")' carries only the op's name (match " + fix +
                                           ")");
    note(d, matched->callee_range, "'" + text + "' is matched here");
  }
}

}  // namespace graft::dsl::detail
