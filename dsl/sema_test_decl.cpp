// Sema of `test` blocks: the graph (typed inputs, random or literal params, op calls checked
// like a replacement and typed by the schema's shape functions, so a rank or channel mismatch
// is reported before anything runs), the `apply` list and the expectations.
#include <cmath>

#include "dsl/printer.h"
#include "dsl/sema_internal.h"
#include "dsl/test_graph.h"
#include "engine/support/edit_distance.h"
#include "engine/support/format_bytes.h"

namespace graft::dsl::detail {
namespace {

using namespace ast;

constexpr const char* kEquivalentOptions[] = {"rtol", "atol", "trials"};

}  // namespace

std::optional<TensorType> Sema::check_type(const TypeSpec* type) {
  TensorType result;
  bool ok = true;
  if (std::optional<DType> dtype = parse_dtype(type->dtype->text)) {
    result.dtype = *dtype;
  } else {
    error(type->dtype->range, "unknown dtype '" + std::string(type->dtype->text) + "'" +
                                  did_you_mean(type->dtype->text, dtype_spellings()));
    ok = false;
  }
  for (const Expr* dim : type->dims) {
    const auto* n = dyn_cast<NumberExpr>(dim);
    if (n != nullptr && n->is_int && n->int_value >= 0) {
      result.shape.push_back(n->int_value);
    } else if (const auto* symbol = dyn_cast<NameExpr>(dim)) {
      error(dim->range,
            "test shapes must be concrete, but '" + std::string(symbol->name) + "' is a symbol");
      ok = false;
    } else {
      error(dim->range, "a dim must be a non-negative integer");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  if (!within_size_limit(result)) {
    error(type->range, size_limit_message(result));
    return std::nullopt;
  }
  count_test_tensor(type->range, result);
  return result;
}

void Sema::count_test_tensor(SourceRange range, const TensorType& type) {
  if (test_too_large_) return;
  std::optional<int64_t> count = element_count(type.shape);
  if (!count) {
    if (!is_concrete(type.shape)) return;  // a symbol: reported where it is written
    test_too_large_ = true;
    error(range, size_limit_message(type));
    return;
  }
  const auto size = static_cast<int64_t>(dtype_size(type.dtype));
  const bool fits = *count <= (kMaxTestTensorBytes - test_bytes_) / size;
  if (fits) {
    test_bytes_ += *count * size;
    return;
  }
  test_too_large_ = true;
  // The sum is reported in floating point: the count may be near int64's limit.
  const double total = static_cast<double>(test_bytes_) + static_cast<double>(*count) *
                                                              static_cast<double>(size);
  error(range, type_to_string(type) + " brings the test's tensors (inputs, params and op "
                                      "results) to " + format_bytes(total) + ", more than the " +
                   format_bytes(static_cast<double>(kMaxTestTensorBytes)) + " a test may use");
}

/// `= 0.5` fills the tensor; `= [..]` gives every element.
static void check_param_values(Sema& sema, const ParamDefStmt* def,
                               const std::optional<TensorType>& type) {
  if (def->positive) {
    sema.error(def->positive_range,
               "'positive' applies to random params only; this one has values");
  }
  if (def->init->kind == NodeKind::kNumber) return;
  const auto* list = dyn_cast<ListExpr>(def->init);
  bool flat = list != nullptr;
  if (flat) {
    for (const Expr* item : list->items) flat = flat && item->kind == NodeKind::kNumber;
  }
  if (!flat) {
    sema.error(def->init->range,
               "the values of a param must be a number or a flat list of numbers");
    return;
  }
  std::optional<int64_t> count = type ? element_count(type->shape) : std::nullopt;
  if (count && static_cast<size_t>(*count) != list->items.size()) {
    sema.error(def->init->range, "'" + std::string(def->target->text) + "' has " +
                                     std::to_string(*count) + " element" +
                                     (*count == 1 ? "" : "s") + " but " +
                                     std::to_string(list->items.size()) + " value" +
                                     (list->items.size() == 1 ? " is" : "s are") + " given");
  }
}

void Sema::check_graph_body(Block* body, Env& env) {
  for (Stmt* s : body->stmts) {
    if (auto* def = dyn_cast<ParamDefStmt>(s)) {
      ValueResult v;
      v.kind = ValueKind::kTensor;
      v.is_const = true;
      v.type = check_type(def->type);
      if (def->init != nullptr) check_param_values(*this, def, v.type);
      define(*this, *env.scope, def->target, def, v);
      continue;
    }
    auto* assign = static_cast<AssignStmt*>(s);
    ValueResult v = check_value(assign->value, env);
    expect_tensor(assign->value, v, "'" + std::string(assign->target->text) + "'");
    define(*this, *env.scope, assign->target, assign, v);
  }
  for (Expr* e : body->ret->values) {
    ValueResult v = check_value(e, env);
    expect_tensor(e, v, "a graph's return value");
  }
}

void Sema::check_expectation(Condition* c) {
  auto* call = dyn_cast<CallExpr>(c->lhs);
  if (call == nullptr || call->ops.size() != 1 || call->ordered) {
    error(c->lhs->range, "expected 'count(op) == n', 'equivalent(...)' or 'graph { ... }'");
    return;
  }
  std::string_view name = call->ops[0]->text;
  if (c->negated) {
    error(c->range, "'not' cannot be used in an expectation");
    return;
  }
  if (name == "count") {
    if (call->args.size() != 1 || call->args[0]->keyword != nullptr ||
        call->args[0]->value->kind != NodeKind::kName) {
      error(call->range, "'count' takes one op name, as in 'count(relu)'");
      return;
    }
    const auto* op = static_cast<const NameExpr*>(call->args[0]->value);
    if (registry_.find(op->name) == nullptr) {
      error(op->range, "unknown op '" + std::string(op->name) + "'" + registry_.suggest(op->name));
    }
    if (c->op == CmpOp::kNone) {
      error(c->range, "'count(...)' must be compared, as in 'count(relu) == 0'");
      return;
    }
    std::vector<const Expr*> values;
    if (const auto* set = dyn_cast<SetExpr>(c->rhs)) {
      values.assign(set->items.begin(), set->items.end());
    } else if (const auto* range = dyn_cast<RangeExpr>(c->rhs)) {
      values = {range->lo, range->hi};
    } else {
      values.push_back(c->rhs);
    }
    for (const Expr* v : values) {
      const auto* n = dyn_cast<NumberExpr>(v);
      if (n == nullptr || !n->is_int || n->int_value < 0) {
        error(v->range, "'count(...)' is compared with non-negative integers");
      }
    }
    return;
  }
  if (name == "equivalent") {
    if (c->op != CmpOp::kNone) {
      error(c->op_range, "'equivalent(...)' cannot be compared");
      return;
    }
    std::vector<std::string> options(std::begin(kEquivalentOptions), std::end(kEquivalentOptions));
    for (const Arg* a : call->args) {
      if (a->keyword == nullptr || a->is_in) {
        error(a->range, "'equivalent' takes named options: rtol=, atol= or trials=");
        continue;
      }
      std::string_view key = a->keyword->text;
      const auto* n = dyn_cast<NumberExpr>(a->value);
      if (key == "rtol" || key == "atol") {
        if (n == nullptr || n->float_value < 0) {
          error(a->value->range, "'" + std::string(key) + "' must be a non-negative number, got '" +
                                     print_expr(*a->value) + "'");
        }
      } else if (key == "trials") {
        if (n == nullptr || !n->is_int || n->int_value < 1 || n->int_value > 1000) {
          error(a->value->range,
                "'trials' must be an integer from 1 to 1000, got '" + print_expr(*a->value) + "'");
        }
      } else {
        error(a->keyword->range,
              "'equivalent' has no option '" + std::string(key) + "'" + did_you_mean(key, options));
      }
    }
    return;
  }
  error(call->callee_range, "unknown expectation '" + std::string(name) + "'" +
                                did_you_mean(name, {"count", "equivalent", "graph"}));
}

void Sema::check_test(TestDecl* test, CheckedTest& out) {
  test_bytes_ = 0;
  test_too_large_ = false;
  Scope scope;
  Env env;
  env.mode = Mode::kGraph;
  env.scope = &scope;
  for (const Param* input : test->graph->inputs) {
    ValueResult v;
    v.kind = ValueKind::kTensor;
    v.type = check_type(input->type);
    define(*this, scope, input->name, input, v);
    if (Binding* b = scope.find_local(input->name->text)) b->is_param = b->decl == input;
  }
  check_graph_body(test->graph->body, env);

  bool has_apply = false;
  bool has_expect = false;
  for (Node* clause : test->clauses) {
    if (auto* apply = dyn_cast<ApplyClause>(clause)) {
      has_apply = true;
      for (const Ident* id : apply->names) {
        if (auto it = rule_index_.find(id->text); it != rule_index_.end()) {
          // Consecutive rules run together, as one phase to a fixpoint.
          if (out.plan.empty() || out.plan.back().decl != nullptr ||
              out.plan.back().name != "apply") {
            out.plan.push_back({"apply", PhaseMode::kFixpoint, kDefaultFixpointMax, {}, nullptr});
          }
          out.plan.back().rules.push_back(it->second);
          continue;
        }
        const CheckedPhase* phase = nullptr;
        for (const CheckedPhase& p : out_->phases_) {
          if (p.decl != nullptr && p.name == id->text) phase = &p;
        }
        if (phase != nullptr) {
          out.plan.push_back(*phase);
          continue;
        }
        std::vector<std::string> names;
        for (const auto& [name, index] : rule_index_) names.push_back(name);
        for (const auto& [name, decl] : phases_) names.push_back(name);
        error(id->range, "unknown rule or phase '" + std::string(id->text) + "'" +
                             did_you_mean(id->text, names));
      }
      continue;
    }
    has_expect = true;
    for (Node* item : static_cast<ExpectClause*>(clause)->items) {
      if (auto* graph = dyn_cast<GraphBlock>(item)) {
        if (graph->has_inputs) {
          error(graph->inputs.empty() ? graph->range : graph->inputs.front()->range,
                "an expected graph takes its inputs from the test graph; write 'graph { ... }'");
        }
        // The expected graph sees the test graph's inputs, and nothing else.
        Scope expected_scope;
        for (Binding& b : scope.locals()) {
          if (b.is_param) expected_scope.add(b);
        }
        Env expected_env = env;
        expected_env.scope = &expected_scope;
        check_graph_body(graph->body, expected_env);
      } else {
        check_expectation(static_cast<Condition*>(item));
      }
    }
  }
  if (!has_apply) out.plan = out_->phases_;
  if (!has_expect) warning(test->name->range, "test '" + out.name + "' has no expectations");
}

}  // namespace graft::dsl::detail
