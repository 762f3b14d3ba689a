// Parser tests: every construct parses and prints back to the same canonical text, free-form
// input prints in canonical form, and the AST has the shape (associativity, literal folding)
// and source ranges the later stages rely on.
#include <catch2/catch.hpp>

#include <limits>

#include "dsl/printer.h"
#include "tests/dsl/rules_testing.h"
#include "tests/testing/test_paths.h"

using namespace graft;
using graft::testing::parse_text;

namespace {

/// Parses `text` and prints it back; "" with the diagnostics in the failure message on error.
std::string round_trip(const std::string& text) {
  testing::ParsedRules parsed = parse_text(text);
  INFO(parsed.diagnostics);
  REQUIRE(parsed.file != nullptr);
  return dsl::print_file(*parsed.file);
}

struct Construct {
  const char* name;
  const char* text;  // canonical: printing its AST gives it back
};

// clang-format off
const Construct kConstructs[] = {
    {"import", "import \"common/activations.rules\"\n"},
    {"string escapes", "import \"a\\\"b\\\\c.rules\"\n"},
    {"opclass", "opclass act = relu | relu6 | hardtanh\n"},
    {"rule with a doc comment",
     "/// Removes dropout, which is the identity at inference.\n"
     "rule remove_dropout {\n"
     "  pattern(x) {\n"
     "    return dropout(x, training=false)\n"
     "  }\n"
     "  replacement {\n"
     "    return x\n"
     "  }\n"
     "}\n"},
    {"multi-line doc comment and empty doc line",
     "/// First line.\n"
     "///\n"
     "///   indented third line\n"
     "rule r {\n"
     "  pattern(x) {\n"
     "    return relu(x)\n"
     "  }\n"
     "  replacement {\n"
     "    return x\n"
     "  }\n"
     "}\n"},
    {"optional parameters, attribute variables, where, benefit, constant arithmetic",
     "rule fuse_conv_bn {\n"
     "  pattern(x, w, b?, mean, var, gamma, beta) {\n"
     "    y = conv2d(x, w, b, stride=$s, padding=$p, dilation=$d, groups=$g)\n"
     "    return batch_norm(y, mean, var, gamma, beta, training=false, eps=$eps)\n"
     "  }\n"
     "  where const(w, b, mean, var, gamma, beta), uses(y) == 1\n"
     "  benefit 10\n"
     "  replacement {\n"
     "    scale = gamma * rsqrt(var + $eps)\n"
     "    return conv2d(x, w * reshape(scale, [-1, 1, 1, 1]), (b ?? 0) * scale - mean * scale + beta, stride=$s, padding=$p, dilation=$d, groups=$g)\n"
     "  }\n"
     "}\n"},
    {"alternatives, ordered, wildcard, none, constraints and tolerance",
     "rule r {\n"
     "  pattern() {\n"
     "    y = (relu | relu6)(_)\n"
     "    z = ordered add(y, none, alpha in {1, 2.5})\n"
     "    return conv2d(z, _, none, groups in 1..4, stride=[1, 1]), mul(z, 0.5 ~ 1e-3)\n"
     "  }\n"
     "  replacement {\n"
     "    return fold(-y), -(y + 1)\n"
     "  }\n"
     "}\n"},
    {"every kind of where condition",
     "rule r {\n"
     "  pattern(x, w) {\n"
     "    return conv2d(x, w, groups=$g, padding=$p)\n"
     "  }\n"
     "  where const(w), not output(x), uses(x) >= 2, rank(x) in {3, 4}, rank(w) != 1\n"
     "  where dtype(x) == f32, dtype(w) in {f16, bf16}, dtype(x) == dtype(w)\n"
     "  where shape(x) == [N, C, ..., _], shape(w) == shape(x), dim(x, -1) == dim(w, 0), dim(x, 1) == C\n"
     "  where $g in 1..2, $g < 8, $g != $p, $p == [0, 0], $g == 1 ~ 0\n"
     "  where param(w), not buffer(w), value(w) == 0, value(w) != -1.5 ~ 1e-6, value(w) in -1..1\n"
     "  replacement {\n"
     "    return x\n"
     "  }\n"
     "}\n"},
    {"strings, bools and negative numbers as attributes",
     "rule r {\n"
     "  pattern(x) {\n"
     "    return gelu(x, approximate=\"tanh\")\n"
     "  }\n"
     "  replacement {\n"
     "    return hardtanh(x, min_val=-1.5, max_val=1e+2, inplace=true)\n"
     "  }\n"
     "}\n"},
    {"operator precedence and associativity keep only the needed parentheses",
     "rule r {\n"
     "  pattern(a, b, c) {\n"
     "    return a - (b - c) * c / (a + b)\n"
     "  }\n"
     "  replacement {\n"
     "    return a - b - c, (a ?? b) ?? c, a ?? b ?? c, -(a * b), --a, a - -1\n"
     "  }\n"
     "}\n"},
    {"phases", "phase cleanup once { remove_dropout, remove_identity }\n"
               "\n"
               "phase fusion fixpoint(max=8) { fuse_conv_bn }\n"
               "\n"
               "phase canon fixpoint {}\n"},
    {"test with every statement and expectation",
     "/// Conv-bn folding keeps the numbers.\n"
     "test fuse_conv_bn {\n"
     "  graph(x: f32[1, 3, 8, 8], y: i64[]) {\n"
     "    w = param f32[4, 3, 3, 3]\n"
     "    v = param f32[4] positive buffer\n"
     "    m = param f32[4] buffer = [0.5, -1, 2, 3]\n"
     "    s = param f32[1] = 2.5\n"
     "    c = conv2d(x, w, none, padding=[1, 1])\n"
     "    return batch_norm(c, m, v, eps=1e-5), y\n"
     "  }\n"
     "  apply fuse_conv_bn, cleanup\n"
     "  expect count(batch_norm) == 0, count(conv2d) in {1, 2}\n"
     "  expect equivalent(rtol=1e-4, atol=1e-5, trials=3)\n"
     "  expect graph {\n"
     "    w2 = param f32[4, 3, 3, 3]\n"
     "    return conv2d(x, w2, padding=[1, 1]), y\n"
     "  }\n"
     "}\n"},
    {"graph without inputs", "test t {\n"
                             "  graph {\n"
                             "    c = param f32[2] = [1, 2]\n"
                             "    return relu(c)\n"
                             "  }\n"
                             "}\n"},
};
// clang-format on

}  // namespace

TEST_CASE("every construct prints back to the text it was parsed from", "[dsl][parser]") {
  const Construct& c = GENERATE(from_range(std::begin(kConstructs), std::end(kConstructs)));
  INFO("construct: " << c.name);
  CHECK(round_trip(c.text) == c.text);
}

TEST_CASE("a whole file round-trips with blank lines between declarations", "[dsl][parser]") {
  std::string text;
  for (const Construct& c : kConstructs) text += (text.empty() ? "" : "\n") + std::string(c.text);
  CHECK(round_trip(text) == text);
}

TEST_CASE("free-form input prints in canonical form", "[dsl][parser]") {
  // Comments, semicolons, trailing commas, extra parentheses and odd spacing all go away.
  std::string input =
      "# a comment\n"
      "rule   r{pattern(x,y?,){a=relu( (x) ) ;b=add(a,y,);return b}# trailing\n"
      "where uses( a )==1 , not output(a)\n"
      "replacement{  return ((x)) + (1)  ;  }}\n"
      "phase p fixpoint ( max = 3 ) { r, }\n"
      "test t{graph(x:f32[ 2 ],){return relu(x);}expect count(relu)==1,equivalent()}\n";
  CHECK(round_trip(input) ==
        "rule r {\n"
        "  pattern(x, y?) {\n"
        "    a = relu(x)\n"
        "    b = add(a, y)\n"
        "    return b\n"
        "  }\n"
        "  where uses(a) == 1, not output(a)\n"
        "  replacement {\n"
        "    return x + 1\n"
        "  }\n"
        "}\n"
        "\n"
        "phase p fixpoint(max=3) { r }\n"
        "\n"
        "test t {\n"
        "  graph(x: f32[2]) {\n"
        "    return relu(x)\n"
        "  }\n"
        "  expect count(relu) == 1, equivalent()\n"
        "}\n");
}

TEST_CASE("doc comments attach to the next declaration; inside blocks they are comments",
          "[dsl][parser]") {
  testing::ParsedRules parsed = parse_text(
      "# not a doc comment\n"
      "/// one\n"
      "/// two\n"
      "rule r {\n"
      "  /// just a comment here\n"
      "  pattern(x) { return relu(x) }\n"
      "  replacement { return x }\n"
      "}\n"
      "phase p once { r }\n");
  REQUIRE(parsed.file != nullptr);
  REQUIRE(parsed.file->decls.size() == 2);
  CHECK(parsed.file->decls[0]->doc == " one\n two");
  CHECK(parsed.file->decls[1]->doc.empty());
  CHECK_FALSE(parsed.file->decls[1]->doc_range.is_valid());
}

TEST_CASE("binary operators associate left and '?\?' associates right", "[dsl][parser]") {
  testing::ParsedRules parsed = parse_text(
      "rule r { pattern(a, b, c) { return relu(a) } replacement { return a - b - c, a ?? b ?? c } "
      "}");
  REQUIRE(parsed.file != nullptr);
  const auto* rule = dsl::ast::dyn_cast<dsl::ast::RuleDecl>(parsed.file->decls[0]);
  std::span<dsl::ast::Expr* const> values = rule->replacement->body->ret->values;
  const auto* sub = dsl::ast::dyn_cast<dsl::ast::BinaryExpr>(values[0]);
  REQUIRE(sub != nullptr);
  CHECK(dsl::ast::dyn_cast<dsl::ast::BinaryExpr>(sub->lhs) != nullptr);  // (a - b) - c
  CHECK(dsl::ast::dyn_cast<dsl::ast::NameExpr>(sub->rhs)->name == "c");
  const auto* coalesce = dsl::ast::dyn_cast<dsl::ast::BinaryExpr>(values[1]);
  REQUIRE(coalesce != nullptr);
  CHECK(dsl::ast::dyn_cast<dsl::ast::NameExpr>(coalesce->lhs)->name == "a");  // a ?? (b ?? c)
  CHECK(dsl::ast::dyn_cast<dsl::ast::BinaryExpr>(coalesce->rhs) != nullptr);
}

TEST_CASE("a minus before a number is part of the literal", "[dsl][parser]") {
  testing::ParsedRules parsed = parse_text(
      "rule r { pattern(x) { return relu(x) } replacement { return reshape(x, [-1, 2]), -x } }");
  REQUIRE(parsed.file != nullptr);
  const auto* rule = dsl::ast::dyn_cast<dsl::ast::RuleDecl>(parsed.file->decls[0]);
  const auto* call =
      dsl::ast::dyn_cast<dsl::ast::CallExpr>(rule->replacement->body->ret->values[0]);
  const auto* list = dsl::ast::dyn_cast<dsl::ast::ListExpr>(call->args[1]->value);
  const auto* minus_one = dsl::ast::dyn_cast<dsl::ast::NumberExpr>(list->items[0]);
  REQUIRE(minus_one != nullptr);
  CHECK(minus_one->is_int);
  CHECK(minus_one->int_value == -1);
  CHECK(minus_one->spelling == "-1");
  CHECK(dsl::ast::dyn_cast<dsl::ast::UnaryExpr>(rule->replacement->body->ret->values[1]) !=
        nullptr);
}

TEST_CASE("numbers keep their spelling and value", "[dsl][parser]") {
  testing::ParsedRules parsed = parse_text(
      "rule r { pattern(x) { return relu(x) } replacement { return f(1e-5, 2.50, 7, 1.702 ~ 1e-3) "
      "} }");
  REQUIRE(parsed.file != nullptr);
  const auto* rule = dsl::ast::dyn_cast<dsl::ast::RuleDecl>(parsed.file->decls[0]);
  const auto* call =
      dsl::ast::dyn_cast<dsl::ast::CallExpr>(rule->replacement->body->ret->values[0]);
  const auto* eps = dsl::ast::dyn_cast<dsl::ast::NumberExpr>(call->args[0]->value);
  CHECK_FALSE(eps->is_int);
  CHECK(eps->float_value == 1e-5);
  CHECK(dsl::ast::dyn_cast<dsl::ast::NumberExpr>(call->args[1]->value)->spelling == "2.50");
  const auto* seven = dsl::ast::dyn_cast<dsl::ast::NumberExpr>(call->args[2]->value);
  CHECK(seven->is_int);
  CHECK(seven->int_value == 7);
  const auto* tol = dsl::ast::dyn_cast<dsl::ast::ToleranceExpr>(call->args[3]->value);
  REQUIRE(tol != nullptr);
  CHECK(tol->value->float_value == 1.702);
  CHECK(tol->tolerance->float_value == 1e-3);
}

TEST_CASE("inf is a number, and -inf its negative; a name that starts with inf is a name",
          "[dsl][parser]") {
  testing::ParsedRules parsed = parse_text(
      "rule r { pattern(x, info) { return relu(x) } replacement { return f(-inf, inf, info) } }");
  REQUIRE(parsed.file != nullptr);
  const auto* rule = dsl::ast::dyn_cast<dsl::ast::RuleDecl>(parsed.file->decls[0]);
  const auto* call =
      dsl::ast::dyn_cast<dsl::ast::CallExpr>(rule->replacement->body->ret->values[0]);
  const auto* minus_inf = dsl::ast::dyn_cast<dsl::ast::NumberExpr>(call->args[0]->value);
  REQUIRE(minus_inf != nullptr);
  CHECK_FALSE(minus_inf->is_int);
  CHECK(minus_inf->float_value == -std::numeric_limits<double>::infinity());
  CHECK(minus_inf->spelling == "-inf");
  const auto* inf = dsl::ast::dyn_cast<dsl::ast::NumberExpr>(call->args[1]->value);
  REQUIRE(inf != nullptr);
  CHECK(inf->float_value == std::numeric_limits<double>::infinity());
  CHECK(dsl::ast::dyn_cast<dsl::ast::NameExpr>(call->args[2]->value) != nullptr);
}

TEST_CASE("nodes carry the source range of their text", "[dsl][parser]") {
  std::string text =
      "rule r {\n"
      "  pattern(x, w) {\n"
      "    y = conv2d(x, w, stride=$s)\n"
      "    return relu(y)\n"
      "  }\n"
      "  replacement { return y }\n"
      "}\n";
  testing::ParsedRules parsed = parse_text(text);
  REQUIRE(parsed.file != nullptr);
  auto slice = [&](SourceRange r) { return text.substr(r.begin, r.end - r.begin); };
  const auto* rule = dsl::ast::dyn_cast<dsl::ast::RuleDecl>(parsed.file->decls[0]);
  CHECK(slice(rule->range) == text.substr(0, text.size() - 1));
  CHECK(slice(rule->name->range) == "r");
  const auto* assign = dsl::ast::dyn_cast<dsl::ast::AssignStmt>(rule->pattern->body->stmts[0]);
  CHECK(slice(assign->range) == "y = conv2d(x, w, stride=$s)");
  const auto* call = dsl::ast::dyn_cast<dsl::ast::CallExpr>(assign->value);
  CHECK(slice(call->range) == "conv2d(x, w, stride=$s)");
  CHECK(slice(call->callee_range) == "conv2d");
  CHECK(slice(call->args[2]->range) == "stride=$s");
  CHECK(slice(call->args[2]->keyword->range) == "stride");
  CHECK(slice(call->args[2]->value->range) == "$s");
  CHECK(parsed.sources->line_col(call->range.file, call->range.begin).line == 3);
  CHECK(parsed.sources->line_col(call->range.file, call->range.begin).col == 9);
  CHECK(slice(rule->pattern->body->ret->range) == "return relu(y)");
}

TEST_CASE("every rules example in docs/rules.md parses", "[dsl][parser]") {
  std::string doc = testing::read_file(testing::source_path("docs/rules.md"));
  REQUIRE_FALSE(doc.empty());
  int examples = 0;
  for (size_t start = doc.find("```\n"); start != std::string::npos;) {
    size_t body = start + 4;
    size_t end = doc.find("```\n", body);
    REQUIRE(end != std::string::npos);
    std::string block = doc.substr(body, end - body);
    start = doc.find("```\n", end + 4);
    // Skip the shell transcript and the grammar; everything else is .rules text.
    if (block.rfind("$ ", 0) == 0 || block.rfind("file ", 0) == 0) continue;
    INFO("example:\n" << block);
    testing::ParsedRules parsed = parse_text(block);
    CHECK(parsed.diagnostics == "");
    ++examples;
  }
  CHECK(examples >= 12);
}
