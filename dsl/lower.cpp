// Lowering of checked rules to the engine IR (engine/match/pattern.h). One RuleLowering translates
// one rule in three passes, each over the AST that sema has annotated:
//   pattern      statements, then return values, become PatNodes in topological order: a
//                call's arguments are lowered (once, shared by every alternative) before the
//                node itself, and a name refers to the one PatNode its statement made;
//   where        conditions become Conditions over ValueRefs and Terms; names in a dtype
//                comparison are dtypes, elsewhere they are dim symbols;
//   replacement  statements and return values become ReplOps in evaluation order.
// Sema has already rejected whatever the language forbids, so most checks here are defensive;
// the ones that are not are what the language accepts but the engine cannot run (see
// value_ref). Every problem is a located error; nothing is dropped silently.
#include "dsl/lower.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "dsl/literal.h"
#include "engine/ir/dtype.h"

namespace graft::dsl {
namespace {

bool is_op_expr(const ast::Expr* e) {
  return e->kind == ast::NodeKind::kCall || e->kind == ast::NodeKind::kBinary ||
         e->kind == ast::NodeKind::kUnary;
}

/// ast::CmpOp is the engine's CmpOp with kNone (a bare predicate such as `const(w)`) first.
CmpOp lower_cmp(ast::CmpOp op) {
  constexpr CmpOp kOps[] = {CmpOp::kEq, CmpOp::kEq, CmpOp::kNe, CmpOp::kLt,
                            CmpOp::kLe, CmpOp::kGt, CmpOp::kGe, CmpOp::kIn};
  static_assert(static_cast<size_t>(ast::CmpOp::kIn) == std::size(kOps) - 1);
  return kOps[static_cast<size_t>(op)];
}

/// A call argument lowered once (for all alternatives): one value, or a list's items.
template <typename Value>
struct LoweredArg {
  bool is_list = false;
  Value value;
  std::vector<Value> items;
};

class RuleLowering {
 public:
  RuleLowering(const CheckedRule& checked, const SourceManager& sources, DiagnosticEngine& diags)
      : checked_(checked), sources_(sources), diags_(diags) {}

  /// The lowered rule, or nullopt after reporting.
  std::optional<Rule> run() {
    const ast::RuleDecl& decl = *checked_.decl;
    rule_.name = checked_.name;
    rule_.loc = checked_.location;
    rule_.range = decl.name->range;
    rule_.doc = std::string(decl.doc);
    rule_.benefit = checked_.benefit;
    lower_pattern(*decl.pattern);
    for (const ast::Node* clause : decl.clauses) {
      if (const auto* where = ast::dyn_cast<ast::WhereClause>(clause)) {
        for (const ast::Condition* c : where->conditions) lower_condition(*c);
      }
    }
    lower_replacement(*decl.replacement->body);
    rule_.symbol_count = static_cast<uint32_t>(symbols_.size());
    if (!ok_) return std::nullopt;
    return std::move(rule_);
  }

 private:
  // ** helpers **

  void error(SourceRange range, std::string message) {
    diags_.error(DiagLocation::at(range), std::move(message));
    ok_ = false;
  }
  void unsupported(SourceRange range, const std::string& what) {
    error(range, what + " is not supported by the engine yet");
  }
  /// "file.rules:12:7"
  std::string loc(SourceRange range) const {
    LineCol lc = sources_.line_col(range.file, range.begin);
    return sources_.name(range.file) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
  }
  std::string text(SourceRange range) const {
    return std::string(sources_.text(range.file).substr(range.begin, range.end - range.begin));
  }
  /// The id of `$name`: the same name is the same id in the pattern, `where` and replacement.
  uint32_t attr_var(std::string_view name) {
    auto& names = rule_.attr_var_names;
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<uint32_t>(it - names.begin());
    names.emplace_back(name);
    return static_cast<uint32_t>(names.size() - 1);
  }

  /// The literal `e` coerced to attribute `spec` of `schema` (`stride=2` -> [2, 2]), or nullopt
  /// after reporting.
  std::optional<AttrValue> attr_literal(const ast::Expr* e, const OpSchema& schema,
                                        const AttrSpec& spec) {
    std::optional<AttrValue> literal = literal_value(e);
    std::string err;
    std::optional<AttrValue> value = literal ? coerce_attr(spec, *literal, &err) : std::nullopt;
    if (!literal) {
      unsupported(e->range, "this value for '" + spec.name + "' of '" + schema.name + "'");
    } else if (!value) {
      error(e->range, "bad value for '" + spec.name + "' of '" + schema.name + "': " + err);
    }
    return value;
  }

  // ** pattern **

  void lower_pattern(const ast::PatternBlock& pattern) {
    for (const ast::Param* p : pattern.params) {
      vars_.emplace(p, static_cast<uint32_t>(rule_.var_names.size()));
      pattern_names_.emplace(p->name->text);
      rule_.var_names.emplace_back(p->name->text);
      rule_.var_optional.push_back(p->optional);
    }
    var_matched_.assign(rule_.var_names.size(), false);
    for (const ast::Stmt* s : pattern.body->stmts) {
      const auto* assign = ast::dyn_cast<ast::AssignStmt>(s);
      if (assign == nullptr) {
        unsupported(s->range, "this statement in a pattern");
        continue;
      }
      pattern_names_.emplace(assign->target->text);
      if (!is_op_expr(assign->value)) {
        unsupported(assign->value->range, "a pattern statement that is not an op");
        continue;
      }
      if (std::optional<uint32_t> node = pattern_node(assign->value, assign->target->text)) {
        nodes_.emplace(assign, *node);
      }
    }
    const ast::ReturnStmt& ret = *pattern.body->ret;
    for (const ast::Expr* e : ret.values) {
      std::optional<uint32_t> root;
      const auto* name = ast::dyn_cast<ast::NameExpr>(e);
      if (is_op_expr(e)) {
        root = pattern_node(e, "");
      } else if (name != nullptr) {
        if (auto it = nodes_.find(name->decl); it != nodes_.end()) root = it->second;
      }
      if (!root) {
        // Sema reports a returned parameter in its own words; this guards the IR's contract.
        // (An op that failed to lower has been reported already.)
        bool is_param = name != nullptr && vars_.count(name->decl) != 0;
        if (is_param || ok_) error(e->range, "a pattern must return the result of an op");
        continue;
      }
      rule_.roots.push_back(*root);
    }
  }

  /// What one operand position of a pattern op must be.
  PatValue pattern_operand(const ast::Expr* e) {
    PatValue v;
    switch (e->kind) {
      case ast::NodeKind::kName: {
        const auto* name = static_cast<const ast::NameExpr*>(e);
        if (auto it = vars_.find(name->decl); it != vars_.end()) {
          v.kind = PatValue::Kind::kVar;
          v.index = it->second;
          var_matched_[it->second] = true;
        } else if (auto node = nodes_.find(name->decl); node != nodes_.end()) {
          v.kind = PatValue::Kind::kNode;
          v.index = node->second;
        } else {
          unsupported(e->range, "this name in a pattern");
        }
        return v;
      }
      case ast::NodeKind::kWildcard:
        return v;
      case ast::NodeKind::kNone:
        v.kind = PatValue::Kind::kNone;
        return v;
      case ast::NodeKind::kNumber:
        v.kind = PatValue::Kind::kScalar;
        v.scalar = static_cast<const ast::NumberExpr*>(e)->float_value;
        return v;
      case ast::NodeKind::kTolerance: {
        const auto* t = static_cast<const ast::ToleranceExpr*>(e);
        v.kind = PatValue::Kind::kScalar;
        v.scalar = t->value->float_value;
        v.tolerance = t->tolerance->float_value;
        return v;
      }
      case ast::NodeKind::kAttrVar:
        v.kind = PatValue::Kind::kScalarVar;
        v.index = attr_var(static_cast<const ast::AttrVarExpr*>(e)->name);
        return v;
      case ast::NodeKind::kCall:
      case ast::NodeKind::kBinary:
      case ast::NodeKind::kUnary:
        if (std::optional<uint32_t> node = pattern_node(e, "")) {
          v.kind = PatValue::Kind::kNode;
          v.index = *node;
        }
        return v;
      default:
        unsupported(e->range, "this operand in a pattern");
        return v;
    }
  }

  /// Lowers an op expression (operands first) and appends its PatNode; nullopt after reporting.
  std::optional<uint32_t> pattern_node(const ast::Expr* e, std::string_view name) {
    PatNode node;
    if (const auto* call = ast::dyn_cast<ast::CallExpr>(e)) {
      if (!call_node(*call, node)) return std::nullopt;
      node.loc = loc(call->range);
    } else if (const auto* binary = ast::dyn_cast<ast::BinaryExpr>(e)) {
      if (binary->schema == nullptr) {
        unsupported(binary->op_range, "this operator in a pattern");
        return std::nullopt;
      }
      PatValue lhs = pattern_operand(binary->lhs);
      PatValue rhs = pattern_operand(binary->rhs);
      node.alts.push_back(default_alt(*binary->schema, {lhs, rhs}));
      node.commutative = binary->schema->commutative;
      node.loc = loc(binary->op_range);
    } else {
      const auto* unary = static_cast<const ast::UnaryExpr*>(e);
      if (unary->schema == nullptr) {
        unsupported(unary->range, "this operator in a pattern");
        return std::nullopt;
      }
      PatValue operand = pattern_operand(unary->operand);
      node.alts.push_back(default_alt(*unary->schema, {operand}));
      node.loc = loc(unary->range);
    }
    node.name = std::string(name);
    rule_.nodes.push_back(std::move(node));
    return static_cast<uint32_t>(rule_.nodes.size() - 1);
  }

  /// The alternative of an arithmetic operator: its operands, and every attribute that has a
  /// default must keep it (`a + b` matches add with alpha=1 only).
  static PatAlt default_alt(const OpSchema& schema, const std::vector<PatValue>& given) {
    PatAlt alt;
    alt.schema = &schema;
    for (size_t i = 0; i < schema.operands.size(); ++i) {
      if (i < given.size()) {
        alt.operands.push_back(given[i]);
      } else if (!schema.operands[i].variadic) {
        PatValue absent;
        absent.kind = schema.operands[i].optional ? PatValue::Kind::kNone : PatValue::Kind::kAny;
        alt.operands.push_back(absent);
      } else {
        alt.variadic_any = true;
      }
    }
    for (size_t i = 0; i < schema.attrs.size(); ++i) {
      const AttrSpec& spec = schema.attrs[i];
      if (!spec.has_default && !spec.nullable) continue;
      AttrCheck check;
      check.kind = AttrCheck::Kind::kEquals;
      check.attr = static_cast<uint32_t>(i);
      check.value = spec.has_default ? spec.default_value : AttrValue{};
      alt.attrs.push_back(std::move(check));
    }
    return alt;
  }

  /// Fills `node` with one PatAlt per op the call stands for. Returns false after reporting.
  bool call_node(const ast::CallExpr& call, PatNode& node) {
    if (call.bound.empty() || call.is_fold) {
      unsupported(call.callee_range, "this call in a pattern");
      return false;
    }
    // Each argument is one expression, so it is lowered once, however many alternatives bind it.
    std::map<const ast::Arg*, LoweredArg<PatValue>> args;
    for (const ast::Arg* a : call.args) {
      if (!is_operand(call, a)) continue;
      LoweredArg<PatValue>& lowered = args[a];
      if (const auto* list = ast::dyn_cast<ast::ListExpr>(a->value)) {
        lowered.is_list = true;
        for (const ast::Expr* item : list->items) lowered.items.push_back(pattern_operand(item));
      } else {
        lowered.value = pattern_operand(a->value);
      }
    }
    bool ok = true;
    node.commutative = !call.ordered;
    for (const ast::BoundCall& bound : call.bound) {
      PatAlt alt;
      alt.schema = bound.schema;
      node.commutative = node.commutative && bound.schema->commutative;
      ok = alt_operands(bound, args, alt) && ok;
      for (size_t i = 0; i < bound.attrs.size() && i < bound.schema->attrs.size(); ++i) {
        if (bound.attrs[i] == nullptr) continue;
        ok = attr_check(*bound.attrs[i], *bound.schema, static_cast<uint32_t>(i), alt) && ok;
      }
      node.alts.push_back(std::move(alt));
    }
    return ok;
  }

  /// Whether any alternative binds `a` to an operand (sema ensures all or none do).
  static bool is_operand(const ast::CallExpr& call, const ast::Arg* a) {
    for (const ast::BoundCall& bound : call.bound) {
      if (std::find(bound.operands.begin(), bound.operands.end(), a) != bound.operands.end())
        return true;
    }
    return false;
  }

  bool alt_operands(const ast::BoundCall& bound,
                    const std::map<const ast::Arg*, LoweredArg<PatValue>>& args, PatAlt& alt) {
    const OpSchema& schema = *bound.schema;
    for (size_t i = 0; i < schema.operands.size(); ++i) {
      const OperandSpec& spec = schema.operands[i];
      const ast::Arg* a = i < bound.operands.size() ? bound.operands[i] : nullptr;
      if (a == nullptr) {
        if (spec.variadic) {
          alt.variadic_any = true;
        } else {
          PatValue absent;
          absent.kind = spec.optional ? PatValue::Kind::kNone : PatValue::Kind::kAny;
          alt.operands.push_back(absent);
        }
        continue;
      }
      const LoweredArg<PatValue>& lowered = args.at(a);
      if (spec.variadic && lowered.is_list) {
        alt.operands.insert(alt.operands.end(), lowered.items.begin(), lowered.items.end());
      } else if (spec.variadic && lowered.value.kind == PatValue::Kind::kAny) {
        alt.variadic_any = true;
      } else if (!spec.variadic && !lowered.is_list) {
        alt.operands.push_back(lowered.value);
      } else {
        unsupported(a->value->range,
                    "this argument for operand '" + spec.name + "' of '" + schema.name + "'");
        return false;
      }
    }
    return true;
  }

  /// The check of attribute `index` of `schema` that `arg` states, if any; false after reporting.
  bool attr_check(const ast::Arg& arg, const OpSchema& schema, uint32_t index, PatAlt& alt) {
    const AttrSpec& spec = schema.attrs[index];
    AttrCheck check;
    check.attr = index;
    auto coerce = [&](const ast::Expr* e) { return attr_literal(e, schema, spec); };
    const ast::Expr* v = arg.value;
    if (arg.is_in) {
      if (const auto* set = ast::dyn_cast<ast::SetExpr>(v)) {
        check.kind = AttrCheck::Kind::kIn;
        for (const ast::Expr* item : set->items) {
          std::optional<AttrValue> value = coerce(item);
          if (!value) return false;
          check.values.push_back(std::move(*value));
        }
      } else if (const auto* range = ast::dyn_cast<ast::RangeExpr>(v)) {
        check.kind = AttrCheck::Kind::kRange;
        check.lo = range->lo->float_value;
        check.hi = range->hi->float_value;
      } else {
        unsupported(v->range, "this 'in' constraint");
        return false;
      }
    } else if (v->kind == ast::NodeKind::kWildcard) {
      return true;  // `stride=_`: explicitly not checked
    } else if (std::optional<AttrCheck> items = list_with_vars(v, spec)) {
      check.kind = AttrCheck::Kind::kList;
      check.elements = std::move(items->elements);
    } else if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(v)) {
      check.kind = AttrCheck::Kind::kBind;
      check.var = attr_var(var->name);
    } else if (const auto* tol = ast::dyn_cast<ast::ToleranceExpr>(v)) {
      std::optional<AttrValue> value = coerce(tol->value);
      if (!value) return false;
      check.kind = AttrCheck::Kind::kEquals;
      check.value = std::move(*value);
      check.tolerance = tol->tolerance->float_value;
    } else {
      std::optional<AttrValue> value = coerce(v);
      if (!value) return false;
      check.kind = AttrCheck::Kind::kEquals;
      check.value = std::move(*value);
    }
    alt.attrs.push_back(std::move(check));
    return true;
  }

  /// A list with `$` or `_` items (`stride=[$s, $s]`) as a kList check's items; nullopt for
  /// any other expression. Sema has checked the items.
  std::optional<AttrCheck> list_with_vars(const ast::Expr* v, const AttrSpec& spec) {
    if (!ast::is_list_with_vars(v)) return std::nullopt;
    AttrCheck out;
    for (const ast::Expr* item : static_cast<const ast::ListExpr*>(v)->items) {
      AttrCheck c;
      if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(item)) {
        c.kind = AttrCheck::Kind::kBind;
        c.var = attr_var(var->name);
      } else if (const auto* n = ast::dyn_cast<ast::NumberExpr>(item)) {
        c.kind = AttrCheck::Kind::kEquals;
        c.value = spec.type == AttrType::kInts ? AttrValue{n->int_value} : AttrValue{n->float_value};
      } else {
        c.kind = AttrCheck::Kind::kAny;
      }
      out.elements.push_back(std::move(c));
    }
    return out;
  }

  // ** where **

  /// The pattern value `e` names, for a condition or the replacement; nullopt after reporting.
  std::optional<ValueRef> value_ref(const ast::Expr* e) {
    const auto* name = ast::dyn_cast<ast::NameExpr>(e);
    ValueRef ref;
    if (name != nullptr) {
      if (auto it = vars_.find(name->decl); it != vars_.end()) {
        if (!var_matched_[it->second]) {
          // Sema only warns about an unused parameter; nothing in the graph can bind it.
          if (unbound_reported_.insert(it->second).second) {
            error(e->range, "parameter '" + std::string(name->name) +
                                "' does not occur in the pattern, so the engine cannot bind it");
          }
          return std::nullopt;
        }
        ref.kind = ValueRef::Kind::kVar;
        ref.index = it->second;
        return ref;
      }
      if (auto it = nodes_.find(name->decl); it != nodes_.end()) {
        ref.kind = ValueRef::Kind::kNode;
        ref.index = it->second;
        return ref;
      }
    }
    if (ok_) unsupported(e->range, "this value reference");  // else: its op was reported
    return std::nullopt;
  }

  void lower_condition(const ast::Condition& c) {
    Condition out;
    out.negated = c.negated;
    out.text = text(c.range);
    out.loc = loc(c.range);
    const auto* call = ast::dyn_cast<ast::CallExpr>(c.lhs);
    std::string_view predicate = call != nullptr && call->ops.size() == 1 ? call->ops[0]->text : "";
    static const std::map<std::string_view, Condition::Kind> kValueConditions = {
        {"const", Condition::Kind::kConst},
        {"param", Condition::Kind::kParameter},
        {"buffer", Condition::Kind::kBuffer},
        {"output", Condition::Kind::kOutput}};
    if (predicate == "value") {
      if (c.op == ast::CmpOp::kNone || c.rhs == nullptr || call->args.size() != 1) {
        unsupported(c.range, "this condition");
        return;
      }
      std::optional<ValueRef> ref = value_ref(call->args[0]->value);
      std::optional<Term> rhs = ref ? term(c.rhs, false) : std::nullopt;
      if (!rhs) return;
      out.kind = Condition::Kind::kValue;
      out.values.push_back(*ref);
      out.op = lower_cmp(c.op);
      out.rhs = std::move(*rhs);
      rule_.conditions.push_back(std::move(out));
      return;
    }
    if (auto kind = kValueConditions.find(predicate); kind != kValueConditions.end()) {
      out.kind = kind->second;
      if (c.op != ast::CmpOp::kNone) {
        unsupported(c.op_range, "comparing '" + std::string(predicate) + "(...)'");
        return;
      }
      for (const ast::Arg* a : call->args) {
        std::optional<ValueRef> ref = value_ref(a->value);
        if (!ref) return;
        out.values.push_back(*ref);
      }
      rule_.conditions.push_back(std::move(out));
      return;
    }
    if (c.op == ast::CmpOp::kNone || c.rhs == nullptr) {
      unsupported(c.range, "this condition");
      return;
    }
    // `dtype(x) == f32`, `dtype(x) in {f16, bf16}`: names on the right are dtypes.
    bool dtype_names = predicate == "dtype";
    std::optional<Term> lhs = term(c.lhs, dtype_names);
    std::optional<Term> rhs = term(c.rhs, dtype_names);
    if (!lhs || !rhs) return;
    out.kind = Condition::Kind::kCompare;
    out.lhs = std::move(*lhs);
    out.op = lower_cmp(c.op);
    out.rhs = std::move(*rhs);
    rule_.conditions.push_back(std::move(out));
  }

  /// One side of a comparison, or nullopt after reporting.
  std::optional<Term> term(const ast::Expr* e, bool dtype_names) {
    Term t;
    switch (e->kind) {
      case ast::NodeKind::kNumber: {
        const auto* n = static_cast<const ast::NumberExpr*>(e);
        t.kind = Term::Kind::kNumber;
        t.number = n->float_value;
        t.is_int = n->is_int;
        return t;
      }
      case ast::NodeKind::kTolerance: {
        const auto* tol = static_cast<const ast::ToleranceExpr*>(e);
        t.kind = Term::Kind::kNumber;
        t.number = tol->value->float_value;
        t.is_int = tol->value->is_int;
        t.tolerance = tol->tolerance->float_value;
        return t;
      }
      case ast::NodeKind::kString:
        t.kind = Term::Kind::kString;
        t.string = std::string(static_cast<const ast::StringExpr*>(e)->value);
        return t;
      case ast::NodeKind::kBool:
        t.kind = Term::Kind::kBool;
        t.flag = static_cast<const ast::BoolExpr*>(e)->value;
        return t;
      case ast::NodeKind::kNone:
      case ast::NodeKind::kWildcard:
      case ast::NodeKind::kEllipsis:
        t.kind = e->kind == ast::NodeKind::kNone       ? Term::Kind::kNone
                 : e->kind == ast::NodeKind::kWildcard ? Term::Kind::kWildcard
                                                       : Term::Kind::kEllipsis;
        return t;
      case ast::NodeKind::kAttrVar:
        t.kind = Term::Kind::kAttrVar;
        t.var = attr_var(static_cast<const ast::AttrVarExpr*>(e)->name);
        return t;
      case ast::NodeKind::kName:
        return name_term(static_cast<const ast::NameExpr&>(*e), dtype_names);
      case ast::NodeKind::kList:
      case ast::NodeKind::kSet: {
        t.kind = e->kind == ast::NodeKind::kList ? Term::Kind::kList : Term::Kind::kSet;
        std::span<ast::Expr* const> items = e->kind == ast::NodeKind::kList
                                                ? static_cast<const ast::ListExpr*>(e)->items
                                                : static_cast<const ast::SetExpr*>(e)->items;
        for (const ast::Expr* item : items) {
          std::optional<Term> sub = term(item, dtype_names);
          if (!sub) return std::nullopt;
          t.items.push_back(std::move(*sub));
        }
        return t;
      }
      case ast::NodeKind::kRange: {
        const auto* range = static_cast<const ast::RangeExpr*>(e);
        t.kind = Term::Kind::kRange;
        for (const ast::NumberExpr* n : {range->lo, range->hi}) {
          t.items.push_back(*term(n, false));
        }
        return t;
      }
      case ast::NodeKind::kCall:
        return predicate_term(static_cast<const ast::CallExpr&>(*e));
      default:
        unsupported(e->range, "this expression in a condition");
        return std::nullopt;
    }
  }

  /// A dtype (`f32`) in a dtype comparison, else a dim symbol (`N`).
  std::optional<Term> name_term(const ast::NameExpr& name, bool dtype_names) {
    Term t;
    if (dtype_names) {
      std::optional<DType> dtype = parse_dtype(name.name);
      if (!dtype) {
        unsupported(name.range, "the dtype '" + std::string(name.name) + "'");
        return std::nullopt;
      }
      t.kind = Term::Kind::kDType;
      t.dtype = *dtype;
      return t;
    }
    if (pattern_names_.count(name.name) != 0) {
      unsupported(name.range, "comparing a dim with the pattern value '" + std::string(name.name) +
                                  "' (a dim symbol needs a new name)");
      return std::nullopt;
    }
    auto [it, inserted] =
        symbols_.emplace(std::string(name.name), static_cast<uint32_t>(symbols_.size()));
    t.kind = Term::Kind::kSymbol;
    t.var = it->second;
    return t;
  }

  /// uses(v), rank(v), dim(v, i), dtype(v), name(v) or shape(v).
  std::optional<Term> predicate_term(const ast::CallExpr& call) {
    static const std::map<std::string_view, Term::Kind> kKinds = {{"uses", Term::Kind::kUses},
                                                                  {"rank", Term::Kind::kRank},
                                                                  {"dim", Term::Kind::kDim},
                                                                  {"dtype", Term::Kind::kDTypeOf},
                                                                  {"name", Term::Kind::kNameOf},
                                                                  {"shape", Term::Kind::kShapeOf}};
    auto it = call.ops.size() == 1 ? kKinds.find(call.ops[0]->text) : kKinds.end();
    size_t arity = it != kKinds.end() && it->second == Term::Kind::kDim ? 2 : 1;
    if (it == kKinds.end() || call.args.size() != arity) {
      unsupported(call.range, "this call in a condition");
      return std::nullopt;
    }
    Term t;
    t.kind = it->second;
    std::optional<ValueRef> ref = value_ref(call.args[0]->value);
    if (!ref) return std::nullopt;
    t.value = *ref;
    if (arity == 2) {
      const auto* index = ast::dyn_cast<ast::NumberExpr>(call.args[1]->value);
      if (index == nullptr || !index->is_int) {
        unsupported(call.args[1]->range, "this dim index");
        return std::nullopt;
      }
      t.dim = index->int_value;
    }
    return t;
  }

  // ** replacement **

  void lower_replacement(const ast::Block& body) {
    for (const ast::Stmt* s : body.stmts) {
      const auto* assign = ast::dyn_cast<ast::AssignStmt>(s);
      if (assign == nullptr) {
        unsupported(s->range, "this statement in a replacement");
        continue;
      }
      size_t first_new = rule_.replacement.size();
      ReplValue v = repl_value(assign->value, false);
      // The op the statement computes gets its name (not an earlier op it merely renames).
      if (v.kind == ReplValue::Kind::kResult && v.index >= first_new) {
        rule_.replacement[v.index].name = std::string(assign->target->text);
      }
      repl_names_.emplace(assign, std::move(v));
    }
    for (const ast::Expr* e : body.ret->values) {
      rule_.results.push_back(repl_value(e, false));
      rule_.result_locs.push_back(loc(e->range));
      rule_.result_ranges.push_back(e->range);
    }
  }

  /// A replacement value; ops it needs are appended first. `fold`: inside `fold(...)`.
  ReplValue repl_value(const ast::Expr* e, bool fold) {
    ReplValue v;
    switch (e->kind) {
      case ast::NodeKind::kName: {
        const auto* name = static_cast<const ast::NameExpr*>(e);
        if (auto it = repl_names_.find(name->decl); it != repl_names_.end()) return it->second;
        if (std::optional<ValueRef> ref = value_ref(e)) {
          v.kind = ReplValue::Kind::kValue;
          v.value = *ref;
        }
        return v;
      }
      case ast::NodeKind::kNumber: {
        const auto* n = static_cast<const ast::NumberExpr*>(e);
        v.kind = ReplValue::Kind::kScalar;
        v.scalar = Scalar{n->float_value, n->is_int};
        return v;
      }
      case ast::NodeKind::kAttrVar:
        v.kind = ReplValue::Kind::kAttrVar;
        v.index = attr_var(static_cast<const ast::AttrVarExpr*>(e)->name);
        return v;
      case ast::NodeKind::kNone:
        return v;
      case ast::NodeKind::kCall: {
        const auto* call = static_cast<const ast::CallExpr*>(e);
        if (call->is_fold && call->args.size() == 1) return repl_value(call->args[0]->value, true);
        return repl_call(*call, fold);
      }
      case ast::NodeKind::kBinary: {
        const auto* binary = static_cast<const ast::BinaryExpr*>(e);
        if (binary->op == ast::BinaryOp::kCoalesce) {
          v.kind = ReplValue::Kind::kCoalesce;
          v.items.push_back(repl_value(binary->lhs, fold));
          v.items.push_back(repl_value(binary->rhs, fold));
          return v;
        }
        if (binary->schema == nullptr) break;
        ReplValue lhs = repl_value(binary->lhs, fold);
        ReplValue rhs = repl_value(binary->rhs, fold);
        return append_op(*binary->schema, {std::move(lhs), std::move(rhs)}, fold, binary->op_range);
      }
      case ast::NodeKind::kUnary: {
        const auto* unary = static_cast<const ast::UnaryExpr*>(e);
        if (unary->schema == nullptr) break;
        ReplValue operand = repl_value(unary->operand, fold);
        return append_op(*unary->schema, {std::move(operand)}, fold, unary->range);
      }
      default:
        break;
    }
    unsupported(e->range, "this expression in a replacement");
    return v;
  }

  /// Appends an arithmetic op with its two (or one) operands and default attributes.
  ReplValue append_op(const OpSchema& schema, std::vector<ReplValue> operands, bool fold,
                      SourceRange range) {
    ReplOp op;
    op.schema = &schema;
    op.operands = std::move(operands);
    op.operands.resize(std::max(op.operands.size(), schema.operands.size()));
    op.attrs.resize(schema.attrs.size());
    op.must_fold = fold;
    op.loc = loc(range);
    op.range = range;
    return push_op(std::move(op));
  }

  ReplValue push_op(ReplOp op) {
    rule_.replacement.push_back(std::move(op));
    ReplValue v;
    v.kind = ReplValue::Kind::kResult;
    v.index = static_cast<uint32_t>(rule_.replacement.size() - 1);
    return v;
  }

  ReplValue repl_call(const ast::CallExpr& call, bool fold) {
    if (call.bound.size() != 1 || call.is_fold) {
      unsupported(call.callee_range, "this call in a replacement");
      return {};
    }
    const ast::BoundCall& bound = call.bound[0];
    const OpSchema& schema = *bound.schema;
    // Arguments are evaluated in the order they are written, like Python's.
    std::map<const ast::Arg*, LoweredArg<ReplValue>> args;
    for (const ast::Arg* a : call.args) {
      if (std::find(bound.operands.begin(), bound.operands.end(), a) == bound.operands.end())
        continue;
      LoweredArg<ReplValue>& lowered = args[a];
      if (const auto* list = ast::dyn_cast<ast::ListExpr>(a->value)) {
        lowered.is_list = true;
        for (const ast::Expr* item : list->items) lowered.items.push_back(repl_value(item, fold));
      } else {
        lowered.value = repl_value(a->value, fold);
      }
    }
    ReplOp op;
    op.schema = &schema;
    op.must_fold = fold;
    op.loc = loc(call.range);
    op.range = call.range;
    for (size_t i = 0; i < schema.operands.size(); ++i) {
      const ast::Arg* a = i < bound.operands.size() ? bound.operands[i] : nullptr;
      if (a == nullptr) {
        if (!schema.operands[i].variadic) op.operands.emplace_back();  // None
        continue;
      }
      const LoweredArg<ReplValue>& lowered = args.at(a);
      if (schema.operands[i].variadic != lowered.is_list) {
        unsupported(a->value->range, "this argument for operand '" + schema.operands[i].name +
                                         "' of '" + schema.name + "'");
        continue;
      }
      if (lowered.is_list) {
        op.operands.insert(op.operands.end(), lowered.items.begin(), lowered.items.end());
      } else {
        op.operands.push_back(lowered.value);
      }
    }
    for (size_t i = 0; i < schema.attrs.size(); ++i) {
      const ast::Arg* a = i < bound.attrs.size() ? bound.attrs[i] : nullptr;
      op.attrs.push_back(a == nullptr ? ReplValue{} : repl_attr(*a, schema, schema.attrs[i]));
    }
    return push_op(std::move(op));
  }

  /// `D` or a list with dim symbols (`[D]`, `[1, D]`) as an attribute, or nullopt for
  /// expressions without a symbol. Sema has checked the items are ints and bound symbols.
  std::optional<ReplValue> dim_symbol_attr(const ast::Expr& e) {
    auto symbol = [&](const ast::NameExpr& name) {
      ReplValue v;
      v.kind = ReplValue::Kind::kSymbol;
      auto it = symbols_.find(name.name);
      if (it == symbols_.end()) {
        unsupported(name.range, "the dim symbol '" + std::string(name.name) +
                                    "', which no where condition binds");
        return v;
      }
      v.index = it->second;
      std::vector<uint32_t>& used = rule_.replacement_symbols;
      if (std::find(used.begin(), used.end(), v.index) == used.end()) used.push_back(v.index);
      return v;
    };
    if (const auto* name = ast::dyn_cast<ast::NameExpr>(&e)) return symbol(*name);
    const auto* list = ast::dyn_cast<ast::ListExpr>(&e);
    if (list == nullptr || std::none_of(list->items.begin(), list->items.end(), [](const ast::Expr* i) {
          return i->kind == ast::NodeKind::kName;
        })) {
      return std::nullopt;
    }
    ReplValue v;
    v.kind = ReplValue::Kind::kDimList;
    for (const ast::Expr* item : list->items) {
      if (const auto* name = ast::dyn_cast<ast::NameExpr>(item)) {
        v.items.push_back(symbol(*name));
      } else {
        const auto* n = static_cast<const ast::NumberExpr*>(item);
        ReplValue number;
        number.kind = ReplValue::Kind::kScalar;
        number.scalar = Scalar{n->float_value, true};
        v.items.push_back(number);
      }
    }
    return v;
  }

  /// A replacement attribute: a `$` variable, dims, a matched op's name, or a literal coerced
  /// to the attribute's type.
  ReplValue repl_attr(const ast::Arg& arg, const OpSchema& schema, const AttrSpec& spec) {
    ReplValue v;
    if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(arg.value)) {
      v.kind = ReplValue::Kind::kAttrVar;
      v.index = attr_var(var->name);
      return v;
    }
    if (const auto* call = ast::dyn_cast<ast::CallExpr>(arg.value); call && call->is_op_name) {
      // Sema has checked the argument names a pattern statement matched by alternatives.
      const auto* name =
          call->args.size() == 1 ? ast::dyn_cast<ast::NameExpr>(call->args[0]->value) : nullptr;
      auto node = name != nullptr ? nodes_.find(name->decl) : nodes_.end();
      if (node == nodes_.end()) {
        unsupported(call->range, "this 'op_name' argument");
        return v;
      }
      v.kind = ReplValue::Kind::kOpName;
      v.index = node->second;
      return v;
    }
    if (std::optional<ReplValue> dims = dim_symbol_attr(*arg.value)) return *dims;
    if (ast::is_list_with_vars(arg.value)) {
      // `stride=[$s, $s]`: an int list of numbers and variables (sema allows no `_` here).
      v.kind = ReplValue::Kind::kDimList;
      for (const ast::Expr* item : static_cast<const ast::ListExpr*>(arg.value)->items) {
        ReplValue element;
        if (const auto* var = ast::dyn_cast<ast::AttrVarExpr>(item)) {
          element.kind = ReplValue::Kind::kAttrVar;
          element.index = attr_var(var->name);
        } else {
          element.kind = ReplValue::Kind::kScalar;
          element.scalar = Scalar{static_cast<const ast::NumberExpr*>(item)->float_value, true};
        }
        v.items.push_back(element);
      }
      return v;
    }
    std::optional<AttrValue> value =
        arg.is_in ? std::nullopt : attr_literal(arg.value, schema, spec);
    if (arg.is_in) unsupported(arg.range, "an 'in' constraint in a replacement");
    if (value) {
      v.kind = ReplValue::Kind::kLiteral;
      v.literal = std::move(*value);
    }
    return v;
  }

  const CheckedRule& checked_;
  const SourceManager& sources_;
  DiagnosticEngine& diags_;
  Rule rule_;
  bool ok_ = true;
  std::map<const ast::Node*, uint32_t> vars_;             // Param -> variable
  std::vector<bool> var_matched_;                         // the variable occurs in a PatNode
  std::set<uint32_t> unbound_reported_;                   // variables reported as unbindable
  std::map<const ast::Node*, uint32_t> nodes_;            // pattern AssignStmt -> PatNode
  std::set<std::string_view> pattern_names_;              // parameters and statement names
  std::map<const ast::Node*, ReplValue> repl_names_;      // replacement AssignStmt -> its value
  std::map<std::string, uint32_t, std::less<>> symbols_;  // dim symbol -> id
};

Phase lower_phase(const CheckedPhase& checked, const std::vector<uint32_t>& rule_index) {
  Phase phase;
  phase.name = checked.name;
  phase.mode = checked.mode == ast::PhaseMode::kOnce ? PhaseMode::kOnce : PhaseMode::kFixpoint;
  phase.max_iterations = checked.max_iterations;
  for (size_t r : checked.rules) {
    if (r < rule_index.size()) phase.rules.push_back(rule_index[r]);
  }
  return phase;
}

/// Lowers the rules marked in `wanted` (indices into set.rules()) and `phases`.
std::optional<RuleSet> lower_rules(const RuleFileSet& set, const std::vector<bool>& wanted,
                                   const std::vector<CheckedPhase>& phases,
                                   const SourceManager& sources, DiagnosticEngine& diags) {
  RuleSet out;
  bool ok = true;
  std::vector<uint32_t> rule_index(set.rules().size(), 0);
  for (size_t i = 0; i < set.rules().size(); ++i) {
    if (!wanted[i]) continue;
    std::optional<Rule> rule = RuleLowering(set.rules()[i], sources, diags).run();
    ok = ok && rule.has_value();
    if (!rule) continue;
    rule_index[i] = static_cast<uint32_t>(out.rules.size());
    out.rules.push_back(std::move(*rule));
  }
  if (!ok) return std::nullopt;
  for (const CheckedPhase& p : phases) out.phases.push_back(lower_phase(p, rule_index));
  return out;
}

}  // namespace

std::optional<RuleSet> lower(const RuleFileSet& set, const SourceManager& sources,
                             DiagnosticEngine& diags) {
  return lower_rules(set, std::vector<bool>(set.rules().size(), true), set.phases(), sources,
                     diags);
}

std::optional<RuleSet> lower_plan(const RuleFileSet& set, const std::vector<CheckedPhase>& plan,
                                  const SourceManager& sources, DiagnosticEngine& diags) {
  std::vector<bool> wanted(set.rules().size(), false);
  for (const CheckedPhase& p : plan) {
    for (size_t r : p.rules) {
      if (r < wanted.size()) wanted[r] = true;
    }
  }
  return lower_rules(set, wanted, plan, sources, diags);
}

}  // namespace graft::dsl
