// Sema on valid input: what it annotates on the AST (resolved ops, argument binding, the
// declaration each name refers to), the default benefit, phases and test plans, and the error
// limit. Diagnostics have their own table in sema_diagnostics_test.cpp.
#include <catch2/catch.hpp>

#include "engine/ops/op_schema.h"
#include "tests/dsl/rules_testing.h"

using namespace graft;
using namespace graft::dsl;
using graft::testing::load_rules;

namespace {

const ast::RuleDecl* rule_named(const RuleFileSet& set, std::string_view name) {
  const CheckedRule* r = set.find_rule(name);
  REQUIRE(r != nullptr);
  return r->decl;
}

}  // namespace

TEST_CASE("sema binds call arguments to the op schema", "[dsl][sema]") {
  testing::LoadedRules loaded = load_rules(
      "rule conv_relu {\n"
      "  pattern(x, w, b?) {\n"
      "    c = conv2d(x, w, b, stride=$s, groups in {1, 2})\n"
      "    return relu(c)\n"
      "  }\n"
      "  replacement {\n"
      "    return conv2d_post(x, w, b, stride=$s, activation=\"relu\")\n"
      "  }\n"
      "}\n");
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  CHECK(loaded.diagnostics == "");
  const ast::RuleDecl* rule = rule_named(*loaded.set, "conv_relu");
  const auto* assign = ast::dyn_cast<ast::AssignStmt>(rule->pattern->body->stmts[0]);
  const auto* conv = ast::dyn_cast<ast::CallExpr>(assign->value);
  REQUIRE(conv->bound.size() == 1);
  const ast::BoundCall& bound = conv->bound[0];
  CHECK(bound.schema->name == "conv2d");
  REQUIRE(bound.operands.size() == 3);
  // input, weight and bias are operands 0..2, bound positionally.
  CHECK(bound.operands[0] == conv->args[0]);
  CHECK(bound.operands[2] == conv->args[2]);
  const auto* bias = ast::dyn_cast<ast::NameExpr>(bound.operands[2]->value);
  REQUIRE(bias != nullptr);
  REQUIRE(bias->decl != nullptr);
  CHECK(ast::dyn_cast<ast::Param>(bias->decl)->optional);
  // stride and groups are bound by keyword; padding is not mentioned.
  int stride = bound.schema->attr_index("stride");
  int padding = bound.schema->attr_index("padding");
  int groups = bound.schema->attr_index("groups");
  CHECK(bound.attrs[static_cast<size_t>(stride)] == conv->args[3]);
  CHECK(bound.attrs[static_cast<size_t>(padding)] == nullptr);
  CHECK(bound.attrs[static_cast<size_t>(groups)]->is_in);

  // The replacement's names refer to the pattern's declarations.
  const auto* post = ast::dyn_cast<ast::CallExpr>(rule->replacement->body->ret->values[0]);
  REQUIRE(post->bound.size() == 1);
  CHECK(post->bound[0].schema->name == "conv2d_post");
  const auto* x = ast::dyn_cast<ast::NameExpr>(post->args[0]->value);
  CHECK(x->decl == rule->pattern->params[0]);
  // The relu's operand is the pattern statement `c`.
  const auto* relu = ast::dyn_cast<ast::CallExpr>(rule->pattern->body->ret->values[0]);
  CHECK(ast::dyn_cast<ast::NameExpr>(relu->args[0]->value)->decl == assign);
}

TEST_CASE("op_name takes values matched by alternatives or op classes whose ops it may name",
          "[dsl][sema]") {
  testing::LoadedRules loaded = load_rules(
      "opclass plain = relu | tanh\n"
      "rule alts {\n"
      "  pattern(x, w) { y = linear(x, w); a = (relu | silu)(y); return a }\n"
      "  replacement { return linear_post(x, w, activation=op_name(a)) }\n"
      "}\n"
      "rule cls {\n"
      "  pattern(x, w) { y = linear(x, w); a = plain(y); return a }\n"
      "  replacement { return linear_post(x, w, activation=op_name(a)) }\n"
      "}\n"
      "rule matched_attrs {\n"
      "  pattern(x, w) { y = linear(x, w); a = (leaky_relu | elu)(y, $s); return a }\n"
      "  replacement { return linear_post(x, w, activation=op_name(a), alpha=$s) }\n"
      "}\n"
      "rule ignored_attr {\n"
      "  pattern(x, w) { y = linear(x, w); a = (leaky_relu | elu)(y, _); return a }\n"
      "  replacement { return linear_post(x, w, activation=op_name(a)) }\n"
      "}\n");
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  CHECK(loaded.diagnostics == "");
  // An attribute written `_` is matched too: the rule says its value does not matter.
  for (const char* name : {"alts", "cls", "matched_attrs", "ignored_attr"}) {
    INFO(name);
    const ast::RuleDecl* rule = rule_named(*loaded.set, name);
    const auto* post = ast::dyn_cast<ast::CallExpr>(rule->replacement->body->ret->values[0]);
    const auto* op_name = ast::dyn_cast<ast::CallExpr>(post->args[2]->value);
    REQUIRE(op_name != nullptr);
    CHECK(op_name->is_op_name);
    CHECK(op_name->bound.empty());
    // The argument refers to the pattern statement that matched the op.
    const auto* arg = ast::dyn_cast<ast::NameExpr>(op_name->args[0]->value);
    CHECK(arg->decl == rule->pattern->body->stmts[1]);
  }
}

TEST_CASE("arithmetic operators resolve to add, mul and friends", "[dsl][sema]") {
  testing::LoadedRules loaded = load_rules(
      "rule r { pattern(x, y) { return x * y + x } where const(y) replacement { return fold(y * 2) "
      "+ x } }");
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  const ast::RuleDecl* rule = rule_named(*loaded.set, "r");
  const auto* sum = ast::dyn_cast<ast::BinaryExpr>(rule->pattern->body->ret->values[0]);
  CHECK(sum->schema->name == "add");
  CHECK(ast::dyn_cast<ast::BinaryExpr>(sum->lhs)->schema->name == "mul");
  const auto* rsum = ast::dyn_cast<ast::BinaryExpr>(rule->replacement->body->ret->values[0]);
  const auto* fold = ast::dyn_cast<ast::CallExpr>(rsum->lhs);
  REQUIRE(fold != nullptr);
  CHECK(fold->is_fold);
  CHECK(fold->bound.empty());
}

TEST_CASE("the default benefit is the number of ops the pattern matches", "[dsl][sema]") {
  testing::LoadedRules loaded = load_rules(
      "rule two { pattern(x, w) { return relu(conv2d(x, w)) } replacement { return x } }\n"
      "rule three { pattern(x, y) { return relu(x + y * y) } replacement { return x } }\n"
      "rule chosen { pattern(x) { return relu(x) } benefit 7 replacement { return x } }\n");
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  CHECK(loaded.set->find_rule("two")->benefit == 2);
  CHECK_FALSE(loaded.set->find_rule("two")->explicit_benefit);
  CHECK(loaded.set->find_rule("three")->benefit == 3);
  CHECK(loaded.set->find_rule("chosen")->benefit == 7);
  CHECK(loaded.set->find_rule("chosen")->explicit_benefit);
}

TEST_CASE("unlisted rules run in an implicit default phase after the declared ones",
          "[dsl][sema]") {
  testing::LoadedRules loaded = load_rules(
      "rule a { pattern(x) { return relu(x) } replacement { return x } }\n"
      "rule b { pattern(x) { return mul(x, 1) } replacement { return x } }\n"
      "rule c { pattern(x) { return add(x, 0) } replacement { return x } }\n"
      "phase first fixpoint { c }\n"
      "phase second fixpoint(max=5) { a }\n");
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  const std::vector<CheckedPhase>& phases = loaded.set->phases();
  REQUIRE(phases.size() == 3);
  CHECK(phases[0].name == "first");
  CHECK(phases[0].max_iterations == kDefaultFixpointMax);
  CHECK(phases[0].rules == std::vector<size_t>{2});
  CHECK(phases[1].name == "second");
  CHECK(phases[1].max_iterations == 5);
  CHECK(phases[2].name == "default");
  CHECK(phases[2].decl == nullptr);
  CHECK(phases[2].rules == std::vector<size_t>{1});
  CHECK(loaded.set->summary() ==
        "3 rules, 3 phases, 0 tests\n"
        "  phase first (fixpoint, max 32): c\n"
        "  phase second (fixpoint, max 5): a\n"
        "  phase default (fixpoint, max 32): b\n");
}

TEST_CASE("a test runs its apply list, or every phase without one", "[dsl][sema]") {
  testing::LoadedRules loaded = load_rules(
      "rule a { pattern(x) { return relu(x) } replacement { return x } }\n"
      "rule b { pattern(x) { return mul(x, 1) } replacement { return x } }\n"
      "phase p once { b }\n"
      "test listed {\n"
      "  graph(x: f32[2]) { return relu(mul(x, 1)) }\n"
      "  apply a, b, p, a\n"
      "  expect count(relu) == 0\n"
      "}\n"
      "test everything {\n"
      "  graph(x: f32[2]) { return relu(x) }\n"
      "  expect count(relu) == 0, equivalent()\n"
      "}\n");
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  REQUIRE(loaded.set->tests().size() == 2);
  const std::vector<CheckedPhase>& plan = loaded.set->tests()[0].plan;
  REQUIRE(plan.size() == 3);
  CHECK(plan[0].name == "apply");
  CHECK(plan[0].rules == std::vector<size_t>{0, 1});
  CHECK(plan[1].name == "p");
  CHECK(plan[1].mode == ast::PhaseMode::kOnce);
  CHECK(plan[2].rules == std::vector<size_t>{0});
  const std::vector<CheckedPhase>& all = loaded.set->tests()[1].plan;
  REQUIRE(all.size() == 2);
  CHECK(all[0].name == "p");
  CHECK(all[1].name == "default");
}

TEST_CASE("test graphs are typed through the ops' shape functions", "[dsl][sema]") {
  testing::LoadedRules loaded = load_rules(
      "test t {\n"
      "  graph(x: f32[1, 3, 8, 8]) {\n"
      "    w = param f32[4, 3, 3, 3]\n"
      "    b = param f32[4] = [1, 2, 3, 4]\n"
      "    y = conv2d(x, w, b, padding=[1, 1])\n"
      "    v = param f32[4, 4, 1, 1] positive\n"
      "    return relu(conv2d(y, v) + y * 2)\n"
      "  }\n"
      "  expect equivalent()\n"
      "}\n");
  CHECK(loaded.diagnostics == "");
  CHECK(loaded.set.has_value());
  // The same graph with a 5x5 kernel no longer matches y's 8x8 shape in the add.
  loaded = load_rules(
      "test t {\n"
      "  graph(x: f32[1, 3, 8, 8]) {\n"
      "    w = param f32[4, 3, 3, 3]\n"
      "    y = conv2d(x, w, padding=[1, 1])\n"
      "    v = param f32[4, 4, 5, 5]\n"
      "    return relu(conv2d(y, v) + y)\n"
      "  }\n"
      "  expect equivalent()\n"
      "}\n");
  CHECK(loaded.diagnostics ==
        "test.rules:6:17: error: 'add' rejects its inputs: shapes [1, 4, 4, 4] and [1, 4, 8, 8] "
        "cannot be broadcast\n"
        " 6 |     return relu(conv2d(y, v) + y)\n"
        "   |                 ^~~~~~~~~~~~~~~~\n");
}

TEST_CASE("sema keeps going, then stops at the error limit", "[dsl][sema]") {
  std::string text;
  for (int i = 0; i < 30; ++i) {
    text += "rule r" + std::to_string(i) +
            " { pattern(x) { return rellu(x) } replacement { return x } }\n";
  }
  testing::LoadedRules loaded = load_rules(text);
  CHECK_FALSE(loaded.set.has_value());
  size_t reported = 0;
  for (size_t pos = 0;
       (pos = loaded.diagnostics.find("error: unknown op 'rellu'", pos)) != std::string::npos;
       ++pos) {
    ++reported;
  }
  CHECK(reported == 20);
  CHECK(loaded.diagnostics.find("fatal: too many errors") != std::string::npos);
}
