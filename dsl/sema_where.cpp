// Sema of `where` conditions: the predicates const, param, buffer, value, uses, output, rank,
// dtype, shape, dim and name over pattern values, and comparisons of `$` variables. Dims in
// shapes are numbers, symbols (a symbol used twice means equal dims), '_' or one '...'.
#include <array>

#include "dsl/sema_internal.h"
#include "engine/support/edit_distance.h"

namespace graft::dsl::detail {
namespace {

using namespace ast;

enum class Pred {
  kConst,
  kUses,
  kOutput,
  kRank,
  kDtype,
  kShape,
  kDim,
  kName,
  kParam,
  kBuffer,
  kValue
};

struct PredInfo {
  const char* name;
  Pred pred;
  size_t min_args;
  size_t max_args;  // SIZE_MAX: any number
  bool compared;    // must be compared (uses(y) == 1) or must stand alone (const(w))
  const char* example;
};

constexpr std::array<PredInfo, 11> kPredicates = {{
    {"const", Pred::kConst, 1, SIZE_MAX, false, "const(w)"},
    {"uses", Pred::kUses, 1, 1, true, "uses(y) == 1"},
    {"output", Pred::kOutput, 1, 1, false, "not output(y)"},
    {"rank", Pred::kRank, 1, 1, true, "rank(x) == 4"},
    {"dtype", Pred::kDtype, 1, 1, true, "dtype(x) == f32"},
    {"shape", Pred::kShape, 1, 1, true, "shape(x) == [N, C, _, _]"},
    {"dim", Pred::kDim, 2, 2, true, "dim(x, 1) == C"},
    {"name", Pred::kName, 1, 1, true, "name(w) == \"fc.weight\""},
    {"param", Pred::kParam, 1, SIZE_MAX, false, "param(w)"},
    {"buffer", Pred::kBuffer, 1, SIZE_MAX, false, "buffer(w)"},
    {"value", Pred::kValue, 1, 1, true, "value(w) == 0"},
}};

const PredInfo* find_predicate(std::string_view name) {
  for (const PredInfo& p : kPredicates) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

std::vector<std::string> predicate_names() {
  std::vector<std::string> names;
  for (const PredInfo& p : kPredicates) names.push_back(p.name);
  return names;
}

bool is_ordering(CmpOp op) {
  return op == CmpOp::kLt || op == CmpOp::kLe || op == CmpOp::kGt || op == CmpOp::kGe;
}

const CallExpr* as_predicate_call(const Expr* e, Pred pred) {
  const auto* call = dyn_cast<CallExpr>(e);
  if (call == nullptr || call->ops.size() != 1) return nullptr;
  const PredInfo* info = find_predicate(call->ops[0]->text);
  return info != nullptr && info->pred == pred ? call : nullptr;
}

class ConditionChecker {
 public:
  ConditionChecker(Sema& sema, Env& env) : sema_(sema), env_(env) {}

  void check(Condition* c) {
    if (auto* var = dyn_cast<AttrVarExpr>(c->lhs)) {
      check_attr_comparison(c, var);
      return;
    }
    auto* call = dyn_cast<CallExpr>(c->lhs);
    if (call == nullptr || call->ops.size() != 1 || call->ordered) {
      sema_.error(c->lhs->range,
                  "expected a predicate such as 'uses(y) == 1' or a comparison "
                  "such as '$g == 1'");
      return;
    }
    const PredInfo* info = find_predicate(call->ops[0]->text);
    if (info == nullptr && is_op_name_call(call, sema_.registry_)) {
      sema_.reject_op_name(call);
      return;
    }
    if (info == nullptr) {
      sema_.error(call->callee_range, "unknown predicate '" + std::string(call->ops[0]->text) +
                                          "'" +
                                          did_you_mean(call->ops[0]->text, predicate_names()));
      return;
    }
    if (!check_predicate_call(call, *info)) return;
    std::string text = std::string(info->name) + "(...)";
    if (!info->compared && c->op != CmpOp::kNone) {
      sema_.error(c->op_range, "'" + text + "' is a condition and cannot be compared");
      return;
    }
    if (info->compared && c->op == CmpOp::kNone) {
      sema_.error(c->range, "'" + text + "' must be compared, as in '" + info->example + "'");
      return;
    }
    switch (info->pred) {
      case Pred::kConst:
        mark_const(call, "constant", true);
        break;
      case Pred::kParam:
      case Pred::kBuffer:
        // Both hold for constants only, so without `not` the values may be folded.
        mark_const(call, info->pred == Pred::kParam ? "parameter" : "buffer", !c->negated);
        break;
      case Pred::kValue:
        check_value_rhs(c, text);
        mark_const(call, "constant", !c->negated);
        break;
      case Pred::kOutput:
        break;
      case Pred::kUses:
      case Pred::kRank:
        check_int_rhs(c, text, false);
        break;
      case Pred::kDim:
        check_dim_rhs(c, text);
        break;
      case Pred::kDtype:
        check_dtype_rhs(c, text);
        break;
      case Pred::kShape:
        check_shape_rhs(c, text);
        break;
      case Pred::kName:
        check_name_rhs(c, text);
        break;
    }
    if (!c->negated && c->op == CmpOp::kEq) record_requirement(c, *info, call);
  }

 private:
  /// Remembers `rank(x) == k`, `shape(x) == [..]` (without '...') and `dtype(x) == t`, and
  /// reports a value required to have two different ranks or dtypes.
  void record_requirement(const Condition* c, const PredInfo& info, const CallExpr* call) {
    const auto* name = dyn_cast<NameExpr>(call->args[0]->value);
    if (name == nullptr || name->decl == nullptr) return;
    std::string value(name->name);
    if (info.pred == Pred::kRank || info.pred == Pred::kShape) {
      int64_t rank = -1;
      if (const auto* n = dyn_cast<NumberExpr>(c->rhs); n != nullptr && info.pred == Pred::kRank) {
        rank = n->int_value;
      } else if (const auto* list = dyn_cast<ListExpr>(c->rhs);
                 list != nullptr && info.pred == Pred::kShape) {
        rank = static_cast<int64_t>(list->items.size());
        for (const Expr* dim : list->items) {
          if (dim->kind == NodeKind::kEllipsis) rank = -1;
        }
      }
      if (rank < 0) return;
      auto [it, inserted] = env_.required_ranks.emplace(name->decl, std::make_pair(rank, c->range));
      if (!inserted && it->second.first != rank) {
        Diagnostic& d =
            sema_.error(c->range, "'" + value + "' cannot have rank " + std::to_string(rank) +
                                      " and rank " + std::to_string(it->second.first));
        Sema::note(d, it->second.second,
                   "rank " + std::to_string(it->second.first) + " is required here");
      }
      return;
    }
    if (info.pred != Pred::kDtype) return;
    const auto* dtype_ident = dyn_cast<NameExpr>(c->rhs);
    std::optional<DType> dtype =
        dtype_ident != nullptr ? parse_dtype(dtype_ident->name) : std::nullopt;
    if (!dtype) return;
    auto [it, inserted] =
        env_.required_dtypes.emplace(name->decl, std::make_pair(*dtype, c->range));
    if (!inserted && it->second.first != *dtype) {
      Diagnostic& d =
          sema_.error(c->range, "'" + value + "' cannot be both " + graft::dtype_name(*dtype) +
                                    " and " + graft::dtype_name(it->second.first));
      Sema::note(d, it->second.second,
                 std::string(graft::dtype_name(it->second.first)) + " is required here");
    }
  }

  /// Checks the predicate's arguments: pattern value names (and dim's index).
  bool check_predicate_call(CallExpr* call, const PredInfo& info) {
    std::string name = info.name;
    size_t n = call->args.size();
    if (n < info.min_args || n > info.max_args) {
      std::string expected = info.max_args == SIZE_MAX ? "at least " + std::to_string(info.min_args)
                                                       : std::to_string(info.min_args);
      sema_.error(call->range, "'" + name + "' takes " + expected + " argument" +
                                   (info.min_args == 1 ? "" : "s") + ", got " + std::to_string(n));
      return false;
    }
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
      const Arg* a = call->args[i];
      if (a->keyword != nullptr) {
        sema_.error(a->range, "'" + name + "' takes no keyword arguments");
        ok = false;
      } else if (info.pred == Pred::kDim && i == 1) {
        const auto* index = dyn_cast<NumberExpr>(a->value);
        if (index == nullptr || !index->is_int) {
          sema_.error(a->value->range, "the dim index of 'dim' must be an integer such as 1 or -1");
          ok = false;
        }
      } else {
        ok = value_name(a->value, name) != nullptr && ok;
      }
    }
    return ok;
  }

  /// The pattern binding `e` names, or nullptr after reporting.
  Binding* value_name(Expr* e, const std::string& pred) {
    auto* n = dyn_cast<NameExpr>(e);
    if (n == nullptr) {
      sema_.error(e->range, "'" + pred + "' expects the name of a pattern value");
      return nullptr;
    }
    Binding* b = env_.scope->find(n->name);
    if (b == nullptr) {
      sema_.error(n->range, "use of undeclared name '" + std::string(n->name) + "'" +
                                did_you_mean(n->name, env_.scope->names()));
      return nullptr;
    }
    ++b->uses;
    n->decl = b->decl;
    return b;
  }

  /// Checks that each argument is a pattern parameter (a computed value is never a `what`);
  /// `is_const`: the condition makes them constants, which replacements may fold.
  void mark_const(CallExpr* call, const char* what, bool is_const) {
    for (const Arg* a : call->args) {
      const auto* n = static_cast<const NameExpr*>(a->value);
      Binding* b = env_.scope->find(n->name);
      if (!b->is_param) {
        sema_.error(n->range, "'" + std::string(n->name) +
                                  "' is computed by the pattern, so it is never a " + what);
        continue;
      }
      if (is_const) b->is_const = true;
    }
  }

  /// `value(w) == 0`, `value(w) >= 0`, `value(w) == 1.0 ~ 1e-6`, `value(m) in {0, 1}`,
  /// `value(w) in -1..1`: every element against numbers.
  void check_value_rhs(Condition* c, const std::string& text) {
    std::vector<const Expr*> items;
    if (const auto* set = dyn_cast<SetExpr>(c->rhs)) {
      items.assign(set->items.begin(), set->items.end());
    } else if (c->rhs->kind != NodeKind::kRange) {
      items.push_back(c->rhs);
    }
    for (const Expr* item : items) {
      const Expr* value = item;
      if (const auto* tol = dyn_cast<ToleranceExpr>(item)) {
        if (c->op != CmpOp::kEq && c->op != CmpOp::kNe && c->op != CmpOp::kIn) {
          sema_.error(tol->tolerance->range,
                      "a tolerance applies to '==', '!=' and 'in' only, not to '" +
                          std::string(cmp_op_spelling(c->op)) + "'");
        } else if (tol->tolerance->float_value < 0) {
          sema_.error(tol->tolerance->range, "tolerance must be a non-negative number, got '" +
                                                 std::string(tol->tolerance->spelling) + "'");
        }
        value = tol->value;
      }
      if (value->kind != NodeKind::kNumber && value->kind != NodeKind::kBool) {
        sema_.error(item->range, "'" + text + "' is compared with a number such as 0 or 1.5");
      }
    }
  }

  /// Records a dim symbol that `c` binds for every match: only `==` outside `not` binds it
  /// (`dim(x, 0) != N` holds for many N and says nothing of which).
  void note_symbol(const Condition* c, const NameExpr* symbol) {
    if (c->op == CmpOp::kEq && !c->negated) env_.dim_symbols.emplace(symbol->name);
  }

  /// `… == 3`, `… >= 2`, `… in {3, 4}`, `… in 2..4`: integers only.
  void check_int_rhs(Condition* c, const std::string& text, bool allow_symbol) {
    auto is_int = [](const Expr* e) {
      const auto* n = dyn_cast<NumberExpr>(e);
      return n != nullptr && n->is_int;
    };
    if (c->op == CmpOp::kIn) {
      if (const auto* set = dyn_cast<SetExpr>(c->rhs)) {
        for (const Expr* item : set->items) {
          if (!is_int(item))
            sema_.error(item->range, "'" + text + "' is compared with integers only");
        }
      } else {
        const auto* range = static_cast<const RangeExpr*>(c->rhs);
        if (!range->lo->is_int || !range->hi->is_int) {
          sema_.error(c->rhs->range, "'" + text + "' is compared with integers only");
        }
      }
      return;
    }
    if (is_int(c->rhs)) return;
    if (allow_symbol && c->rhs->kind == NodeKind::kName) {
      note_symbol(c, static_cast<const NameExpr*>(c->rhs));
      return;
    }
    sema_.error(c->rhs->range, "'" + text + "' must be compared with an integer" +
                                   (allow_symbol ? " or a dim symbol" : ""));
  }

  void check_dim_rhs(Condition* c, const std::string& text) {
    if (auto* other = const_cast<CallExpr*>(as_predicate_call(c->rhs, Pred::kDim))) {
      check_predicate_call(other, kPredicates[6]);
      return;
    }
    check_int_rhs(c, text, c->op == CmpOp::kEq || c->op == CmpOp::kNe);
  }

  /// `name(w) == "fc.weight"`, `!=`, or `in {"a", "b"}`: strings.
  void check_name_rhs(Condition* c, const std::string& text) {
    if (is_ordering(c->op)) {
      sema_.error(c->op_range, "'" + text + "' can only be compared with '==', '!=' or 'in'");
      return;
    }
    std::vector<const Expr*> items;
    if (const auto* set = dyn_cast<SetExpr>(c->rhs)) {
      items.assign(set->items.begin(), set->items.end());
    } else {
      items.push_back(c->rhs);
    }
    for (const Expr* item : items) {
      if (item->kind != NodeKind::kString) {
        sema_.error(item->range, "'" + text + "' is compared with a string such as \"fc.weight\"");
      }
    }
  }

  void check_dtype_rhs(Condition* c, const std::string& text) {
    if (is_ordering(c->op)) {
      sema_.error(c->op_range, "'" + text + "' can only be compared with '==', '!=' or 'in'");
      return;
    }
    if (auto* other = const_cast<CallExpr*>(as_predicate_call(c->rhs, Pred::kDtype))) {
      check_predicate_call(other, kPredicates[4]);
      return;
    }
    std::vector<const Expr*> names;
    if (const auto* set = dyn_cast<SetExpr>(c->rhs)) {
      names.assign(set->items.begin(), set->items.end());
    } else {
      names.push_back(c->rhs);
    }
    for (const Expr* e : names) {
      const auto* n = dyn_cast<NameExpr>(e);
      if (n == nullptr) {
        sema_.error(e->range, "expected a dtype such as 'f32'");
      } else if (!parse_dtype(n->name)) {
        sema_.error(e->range, "unknown dtype '" + std::string(n->name) + "'" +
                                  did_you_mean(n->name, dtype_spellings()));
      }
    }
  }

  void check_shape_rhs(Condition* c, const std::string& text) {
    if (c->op != CmpOp::kEq && c->op != CmpOp::kNe) {
      sema_.error(c->op_range, "'" + text + "' can only be compared with '==' or '!='");
      return;
    }
    if (auto* other = const_cast<CallExpr*>(as_predicate_call(c->rhs, Pred::kShape))) {
      check_predicate_call(other, kPredicates[5]);
      return;
    }
    const auto* list = dyn_cast<ListExpr>(c->rhs);
    if (list == nullptr) {
      sema_.error(c->rhs->range,
                  "'" + text + "' must be compared with a list of dims such as [N, C, _, _]");
      return;
    }
    bool seen_ellipsis = false;
    for (const Expr* dim : list->items) {
      const auto* n = dyn_cast<NumberExpr>(dim);
      if (dim->kind == NodeKind::kEllipsis) {
        if (seen_ellipsis) sema_.error(dim->range, "'...' may appear only once in a shape");
        seen_ellipsis = true;
      } else if (n != nullptr ? (!n->is_int || n->int_value < 0)
                              : dim->kind != NodeKind::kName && dim->kind != NodeKind::kWildcard) {
        sema_.error(dim->range, "a dim must be a non-negative integer, a symbol, '_' or '...'");
      } else if (dim->kind == NodeKind::kName) {
        note_symbol(c, static_cast<const NameExpr*>(dim));
      }
    }
  }

  void check_attr_comparison(Condition* c, const AttrVarExpr* var) {
    std::string name = "$" + std::string(var->name);
    auto it = env_.attr_vars->find(var->name);
    if (it == env_.attr_vars->end()) {
      sema_.check_attr_var(var, std::nullopt, "", env_);  // reports "not bound by the pattern"
      return;
    }
    ++it->second.uses;
    const std::optional<AttrSpec>& spec = it->second.spec;
    if (c->op == CmpOp::kNone) {
      sema_.error(c->range, "'" + name + "' must be compared, as in '" + name + " == 1'");
      return;
    }
    bool numeric = !spec || spec->type == AttrType::kInt || spec->type == AttrType::kFloat ||
                   spec->type == AttrType::kScalar;
    std::string type = spec ? spec_type_name(*spec) : "a number";
    if ((is_ordering(c->op) || c->rhs->kind == NodeKind::kRange) && !numeric) {
      sema_.error(c->op_range, "'" + std::string(cmp_op_spelling(c->op)) +
                                   "' needs numbers, but '" + name + "' holds " + type);
      return;
    }
    if (auto* other = dyn_cast<AttrVarExpr>(c->rhs)) {
      sema_.check_attr_var(other, spec, "'" + name + "'", env_);
      return;
    }
    std::vector<const Expr*> values;
    if (const auto* set = dyn_cast<SetExpr>(c->rhs)) {
      values.assign(set->items.begin(), set->items.end());
    } else if (c->rhs->kind != NodeKind::kRange) {
      values.push_back(c->rhs);
    }
    for (const Expr* e : values) {
      const Expr* value_expr = e;
      if (const auto* tol = dyn_cast<ToleranceExpr>(e)) {
        if (tol->tolerance->float_value < 0) {
          sema_.error(tol->tolerance->range, "tolerance must be a non-negative number, got '" +
                                                 std::string(tol->tolerance->spelling) + "'");
        }
        value_expr = tol->value;
      }
      std::optional<AttrValue> value = literal_value(value_expr);
      std::string err;
      if (!value) {
        sema_.error(e->range, "'" + name + "' must be compared with a literal or a '$' variable");
      } else if (spec && !coerce_attr(*spec, *value, &err)) {
        sema_.error(e->range, "cannot compare '" + name + "' (" + type + ") with " +
                                  attr_value_kind(*value) + " " + attr_to_string(*value));
      } else if (!spec && !std::holds_alternative<int64_t>(*value) &&
                 !std::holds_alternative<double>(*value)) {
        sema_.error(e->range, "cannot compare '" + name + "' (a number) with " +
                                  attr_value_kind(*value) + " " + attr_to_string(*value));
      }
    }
  }

  Sema& sema_;
  Env& env_;
};

}  // namespace

std::vector<std::string> dtype_spellings() {
  return {"f32",   "f64",   "f16",   "bf16",    "i64",     "i32",     "i16",
          "i8",    "u8",    "bool",  "float32", "float64", "float16", "bfloat16",
          "int64", "int32", "int16", "int8",    "uint8"};
}

void Sema::check_condition(Condition* cond, Env& env) { ConditionChecker(*this, env).check(cond); }

}  // namespace graft::dsl::detail
