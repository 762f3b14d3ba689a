// Grammar tests: the PEGTL analysis of the grammar, and one golden diagnostic per error
// message of grammar_errors.h (the whole rendered text: message, line:col, source line, caret
// and "to match" note), in the style of ninja's manifest_parser_test.
#include "dsl/grammar.h"

#include <catch2/catch.hpp>
#include <tao/pegtl/contrib/analyze.hpp>

#include "dsl/parser.h"
#include "tests/dsl/rules_testing.h"

using graft::testing::parse_text;

TEST_CASE("the rules grammar has no infinite loops or other PEG problems", "[dsl][grammar]") {
  CHECK(tao::pegtl::analyze<graft::dsl::grammar::file>(1) == 0);
}

namespace {

struct SyntaxErrorCase {
  const char* rule;  // the grammar rule whose message is expected
  const char* input;
  const char* expected;
};

// clang-format off
const SyntaxErrorCase kSyntaxErrors[] = {
    {"exponent_digits",
     "rule r { pattern(x) { return relu(x, 1e) } replacement { return x } }",
     R"--(test.rules:1:40: error: expected digits in the exponent of the number
 1 | rule r { pattern(x) { return relu(x, 1e) } replacement { return x } }
   |                                        ^
)--"},
    {"number_end",
     "rule r { pattern(x) { return relu(x, 3x) } replacement { return x } }",
     R"--(test.rules:1:39: error: invalid suffix on number
 1 | rule r { pattern(x) { return relu(x, 3x) } replacement { return x } }
   |                                       ^
)--"},
    {"escape_char",
     "import \"a\\q.rules\"",
     R"--(test.rules:1:11: error: unknown escape sequence in string
 1 | import "a\q.rules"
   |           ^
)--"},
    {"string_body",
     "import \"a.rules",
     R"--(test.rules:1:16: error: unterminated string
 1 | import "a.rules
   |                ^
)--"},
    {"attr_var_name",
     "rule r { pattern(x) { return relu(x, $) } replacement { return x } }",
     R"--(test.rules:1:39: error: expected a variable name after '$'
 1 | rule r { pattern(x) { return relu(x, $) } replacement { return x } }
   |                                       ^
)--"},
    {"tolerance_value",
     "rule r { pattern(x) { return relu(x, 0.5 ~ ) } replacement { return x } }",
     R"--(test.rules:1:44: error: expected a number after '~'
 1 | rule r { pattern(x) { return relu(x, 0.5 ~ ) } replacement { return x } }
   |                                            ^
)--"},
    {"arg_value",
     "rule r { pattern(x) { return conv2d(x, stride=) } replacement { return x } }",
     R"--(test.rules:1:47: error: expected a value after '='
 1 | rule r { pattern(x) { return conv2d(x, stride=) } replacement { return x } }
   |                                               ^
)--"},
    {"set_or_range",
     "rule r { pattern(x) { return conv2d(x, groups in 3) } replacement { return x } }",
     R"--(test.rules:1:50: error: expected a set '{a, b}' or a range 'lo..hi' after 'in'
 1 | rule r { pattern(x) { return conv2d(x, groups in 3) } replacement { return x } }
   |                                                  ^
)--"},
    {"close_args",
     "rule r { pattern(x) { return relu(x y) } replacement { return x } }",
     R"--(test.rules:1:37: error: expected ',' or ')' after the argument
 1 | rule r { pattern(x) { return relu(x y) } replacement { return x } }
   |                                     ^
test.rules:1:34: note: to match this '('
 1 | rule r { pattern(x) { return relu(x y) } replacement { return x } }
   |                                  ^
)--"},
    {"alt_op_name",
     "rule r { pattern(x) { return (relu | )(x) } replacement { return x } }",
     R"--(test.rules:1:38: error: expected an op name after '|'
 1 | rule r { pattern(x) { return (relu | )(x) } replacement { return x } }
   |                                      ^
)--"},
    {"close_alts",
     "rule r { pattern(x) { return (relu | relu6 x) } replacement { return x } }",
     R"--(test.rules:1:44: error: expected '|' or ')' in the op alternatives
 1 | rule r { pattern(x) { return (relu | relu6 x) } replacement { return x } }
   |                                            ^
test.rules:1:30: note: to match this '('
 1 | rule r { pattern(x) { return (relu | relu6 x) } replacement { return x } }
   |                              ^
)--"},
    {"alt_call_args",
     "rule r { pattern(x) { return (relu | relu6) x } replacement { return x } }",
     R"--(test.rules:1:45: error: expected '(' and the arguments after the op alternatives
 1 | rule r { pattern(x) { return (relu | relu6) x } replacement { return x } }
   |                                             ^
)--"},
    {"ordered_target",
     "rule r { pattern(x) { return ordered x } replacement { return x } }",
     R"--(test.rules:1:38: error: expected an op call after 'ordered'
 1 | rule r { pattern(x) { return ordered x } replacement { return x } }
   |                                      ^
)--"},
    {"paren_inner",
     "rule r { pattern(x) { return ( ) } replacement { return x } }",
     R"--(test.rules:1:32: error: expected an expression after '('
 1 | rule r { pattern(x) { return ( ) } replacement { return x } }
   |                                ^
)--"},
    {"close_paren",
     "rule r { pattern(x) { return (x y) } replacement { return x } }",
     R"--(test.rules:1:33: error: expected ')' after the expression
 1 | rule r { pattern(x) { return (x y) } replacement { return x } }
   |                                 ^
test.rules:1:30: note: to match this '('
 1 | rule r { pattern(x) { return (x y) } replacement { return x } }
   |                              ^
)--"},
    {"close_list",
     "rule r { pattern(x) { return reshape(x, [1, 2 3]) } replacement { return x } }",
     R"--(test.rules:1:47: error: expected ',' or ']' in the list
 1 | rule r { pattern(x) { return reshape(x, [1, 2 3]) } replacement { return x } }
   |                                               ^
test.rules:1:41: note: to match this '['
 1 | rule r { pattern(x) { return reshape(x, [1, 2 3]) } replacement { return x } }
   |                                         ^
)--"},
    {"unary_operand",
     "rule r { pattern(x) { return - ) } replacement { return x } }",
     R"--(test.rules:1:32: error: expected an expression after '-'
 1 | rule r { pattern(x) { return - ) } replacement { return x } }
   |                                ^
)--"},
    {"mul_operand",
     "rule r { pattern(x) { return x * ) } replacement { return x } }",
     R"--(test.rules:1:34: error: expected an expression after the operator
 1 | rule r { pattern(x) { return x * ) } replacement { return x } }
   |                                  ^
)--"},
    {"add_operand",
     "rule r { pattern(x) { return x + ) } replacement { return x } }",
     R"--(test.rules:1:34: error: expected an expression after the operator
 1 | rule r { pattern(x) { return x + ) } replacement { return x } }
   |                                  ^
)--"},
    {"coalesce_operand",
     "rule r { pattern(x) { return x ?? ) } replacement { return x } }",
     R"--(test.rules:1:35: error: expected an expression after '??'
 1 | rule r { pattern(x) { return x ?? ) } replacement { return x } }
   |                                   ^
)--"},
    {"set_item",
     "rule r { pattern(x) { return relu(x) } where $g in {} replacement { return x } }",
     R"--(test.rules:1:53: error: expected a value in the set
 1 | rule r { pattern(x) { return relu(x) } where $g in {} replacement { return x } }
   |                                                     ^
)--"},
    {"close_set",
     "rule r { pattern(x) { return relu(x) } where $g in {1 2} replacement { return x } }",
     R"--(test.rules:1:55: error: expected ',' or '}' in the set
 1 | rule r { pattern(x) { return relu(x) } where $g in {1 2} replacement { return x } }
   |                                                       ^
test.rules:1:52: note: to match this '{'
 1 | rule r { pattern(x) { return relu(x) } where $g in {1 2} replacement { return x } }
   |                                                    ^
)--"},
    {"range_hi",
     "rule r { pattern(x) { return relu(x) } where $g in 1..x replacement { return x } }",
     R"--(test.rules:1:55: error: expected the upper bound of the range after '..'
 1 | rule r { pattern(x) { return relu(x) } where $g in 1..x replacement { return x } }
   |                                                       ^
)--"},
    {"cmp_rhs",
     "rule r { pattern(x) { return relu(x) } where uses(x) == replacement { return x } }",
     R"--(test.rules:1:57: error: expected an expression after the comparison
 1 | rule r { pattern(x) { return relu(x) } where uses(x) == replacement { return x } }
   |                                                         ^~~~~~~~~~~
)--"},
    {"open_shape",
     "test t { graph(x: f32) { return x } }",
     R"--(test.rules:1:22: error: expected '[' and the shape after the dtype (write '[]' for a scalar)
 1 | test t { graph(x: f32) { return x } }
   |                      ^
)--"},
    {"shape_dim",
     "test t { graph(x: f32[1, ]) { return x } }",
     R"--(test.rules:1:26: error: expected a dimension (a number or a symbol)
 1 | test t { graph(x: f32[1, ]) { return x } }
   |                          ^
)--"},
    {"close_shape",
     "test t { graph(x: f32[1 2]) { return x } }",
     R"--(test.rules:1:25: error: expected ',' or ']' in the shape
 1 | test t { graph(x: f32[1 2]) { return x } }
   |                         ^
test.rules:1:22: note: to match this '['
 1 | test t { graph(x: f32[1 2]) { return x } }
   |                      ^
)--"},
    {"param_type",
     "test t { graph(x: f32[1]) { w = param 3; return x } }",
     R"--(test.rules:1:39: error: expected a type such as 'f32[4, 3]' after 'param'
 1 | test t { graph(x: f32[1]) { w = param 3; return x } }
   |                                       ^
)--"},
    {"param_init",
     "test t { graph(x: f32[1]) { w = param f32[2] = ; return x } }",
     R"--(test.rules:1:48: error: expected the values of the param after '='
 1 | test t { graph(x: f32[1]) { w = param f32[2] = ; return x } }
   |                                                ^
)--"},
    {"assign_value",
     "rule r { pattern(x) { y = ; return y } replacement { return x } }",
     R"--(test.rules:1:27: error: expected an expression after '='
 1 | rule r { pattern(x) { y = ; return y } replacement { return x } }
   |                           ^
)--"},
    {"return_value",
     "rule r { pattern(x) { return } replacement { return x } }",
     R"--(test.rules:1:30: error: expected a value to return
 1 | rule r { pattern(x) { return } replacement { return x } }
   |                              ^
)--"},
    {"block_return",
     "rule r { pattern(x) { relu(x) } replacement { return x } }",
     R"--(test.rules:1:23: error: expected 'name = expression' or 'return'
 1 | rule r { pattern(x) { relu(x) } replacement { return x } }
   |                       ^~~~
)--"},
    {"close_block",
     "rule r { pattern(x) { return relu(x) y } replacement { return x } }",
     R"--(test.rules:1:38: error: expected '}' after the return statement
 1 | rule r { pattern(x) { return relu(x) y } replacement { return x } }
   |                                      ^
test.rules:1:21: note: to match this '{'
 1 | rule r { pattern(x) { return relu(x) y } replacement { return x } }
   |                     ^
)--"},
    {"open_params",
     "rule r { pattern { return relu(x) } replacement { return x } }",
     R"--(test.rules:1:18: error: expected '(' and the parameters after 'pattern'
 1 | rule r { pattern { return relu(x) } replacement { return x } }
   |                  ^
)--"},
    {"close_params",
     "rule r { pattern(x y) { return relu(x) } replacement { return x } }",
     R"--(test.rules:1:20: error: expected ',' or ')' after the pattern parameter
 1 | rule r { pattern(x y) { return relu(x) } replacement { return x } }
   |                    ^
test.rules:1:17: note: to match this '('
 1 | rule r { pattern(x y) { return relu(x) } replacement { return x } }
   |                 ^
)--"},
    {"pattern_body",
     "rule r { pattern(x) return relu(x) replacement { return x } }",
     R"--(test.rules:1:21: error: expected '{' to start the pattern body
 1 | rule r { pattern(x) return relu(x) replacement { return x } }
   |                     ^~~~~~
)--"},
    {"replacement_body",
     "rule r { pattern(x) { return relu(x) } replacement return x }",
     R"--(test.rules:1:52: error: expected '{' after 'replacement'
 1 | rule r { pattern(x) { return relu(x) } replacement return x }
   |                                                    ^~~~~~
)--"},
    {"where_condition",
     "rule r { pattern(x) { return relu(x) } where , replacement { return x } }",
     R"--(test.rules:1:46: error: expected a condition
 1 | rule r { pattern(x) { return relu(x) } where , replacement { return x } }
   |                                              ^
)--"},
    {"benefit_value",
     "rule r { pattern(x) { return relu(x) } benefit high replacement { return x } }",
     R"--(test.rules:1:48: error: expected a number after 'benefit'
 1 | rule r { pattern(x) { return relu(x) } benefit high replacement { return x } }
   |                                                ^~~~
)--"},
    {"rule_name",
     "rule { }",
     R"--(test.rules:1:6: error: expected a rule name after 'rule'
 1 | rule { }
   |      ^
)--"},
    {"open_rule",
     "rule r pattern(x)",
     R"--(test.rules:1:8: error: expected '{' after the rule name
 1 | rule r pattern(x)
   |        ^~~~~~~
)--"},
    {"rule_pattern",
     "rule r { where uses(x) == 1 }",
     R"--(test.rules:1:10: error: expected 'pattern(...)' at the start of the rule
 1 | rule r { where uses(x) == 1 }
   |          ^~~~~
)--"},
    {"rule_replacement",
     "rule r { pattern(x) { return relu(x) } }",
     R"--(test.rules:1:40: error: expected 'where', 'benefit' or 'replacement'
 1 | rule r { pattern(x) { return relu(x) } }
   |                                        ^
)--"},
    {"close_rule",
     "rule r { pattern(x) { return relu(x) } replacement { return x } benefit 2 }",
     R"--(test.rules:1:65: error: expected '}' at the end of the rule
 1 | rule r { pattern(x) { return relu(x) } replacement { return x } benefit 2 }
   |                                                                 ^~~~~~~
test.rules:1:8: note: to match this '{'
 1 | rule r { pattern(x) { return relu(x) } replacement { return x } benefit 2 }
   |        ^
)--"},
    {"import_path",
     "import other.rules",
     R"--(test.rules:1:8: error: expected a quoted file name after 'import'
 1 | import other.rules
   |        ^~~~~
)--"},
    {"opclass_name",
     "opclass = relu",
     R"--(test.rules:1:9: error: expected a name after 'opclass'
 1 | opclass = relu
   |         ^
)--"},
    {"opclass_eq",
     "opclass act relu",
     R"--(test.rules:1:13: error: expected '=' after the opclass name
 1 | opclass act relu
   |             ^~~~
)--"},
    {"opclass_member",
     "opclass act = relu | ",
     R"--(test.rules:1:21: error: expected an op name
 1 | opclass act = relu | 
   |                     ^
)--"},
    {"phase_name",
     "phase { a }",
     R"--(test.rules:1:7: error: expected a phase name after 'phase'
 1 | phase { a }
   |       ^
)--"},
    {"phase_mode",
     "phase p { a }",
     R"--(test.rules:1:9: error: expected 'once' or 'fixpoint' after the phase name
 1 | phase p { a }
   |         ^
)--"},
    {"max_kw",
     "phase p fixpoint(limit=3) { a }",
     R"--(test.rules:1:18: error: expected 'max' in 'fixpoint(max=K)'
 1 | phase p fixpoint(limit=3) { a }
   |                  ^~~~~
)--"},
    {"max_eq",
     "phase p fixpoint(max 3) { a }",
     R"--(test.rules:1:22: error: expected '=' after 'max'
 1 | phase p fixpoint(max 3) { a }
   |                      ^
)--"},
    {"max_value",
     "phase p fixpoint(max=) { a }",
     R"--(test.rules:1:22: error: expected the iteration limit after 'max='
 1 | phase p fixpoint(max=) { a }
   |                      ^
)--"},
    {"close_fixpoint",
     "phase p fixpoint(max=3 { a }",
     R"--(test.rules:1:24: error: expected ')' after the iteration limit
 1 | phase p fixpoint(max=3 { a }
   |                        ^
)--"},
    {"open_phase",
     "phase p once a, b",
     R"--(test.rules:1:14: error: expected '{' and the rule names of the phase
 1 | phase p once a, b
   |              ^
)--"},
    {"close_phase",
     "phase p once { a b }",
     R"--(test.rules:1:18: error: expected ',' or '}' in the phase's rule list
 1 | phase p once { a b }
   |                  ^
test.rules:1:14: note: to match this '{'
 1 | phase p once { a b }
   |              ^
)--"},
    {"input_colon",
     "test t { graph(x f32[1]) { return x } }",
     R"--(test.rules:1:18: error: expected ':' and a type after the graph input name
 1 | test t { graph(x f32[1]) { return x } }
   |                  ^~~
)--"},
    {"graph_input_type",
     "test t { graph(x: ) { return x } }",
     R"--(test.rules:1:19: error: expected a type such as 'f32[1, 3, 8, 8]'
 1 | test t { graph(x: ) { return x } }
   |                   ^
)--"},
    {"close_inputs",
     "test t { graph(x: f32[1] y: f32[1]) { return x } }",
     R"--(test.rules:1:26: error: expected ',' or ')' after the graph input
 1 | test t { graph(x: f32[1] y: f32[1]) { return x } }
   |                          ^
test.rules:1:15: note: to match this '('
 1 | test t { graph(x: f32[1] y: f32[1]) { return x } }
   |               ^
)--"},
    {"graph_body",
     "test t { graph(x: f32[1]) return x }",
     R"--(test.rules:1:27: error: expected '{' to start the graph body
 1 | test t { graph(x: f32[1]) return x }
   |                           ^~~~~~
)--"},
    {"apply_name",
     "test t { graph(x: f32[1]) { return x } apply }",
     R"--(test.rules:1:46: error: expected a rule or phase name after 'apply'
 1 | test t { graph(x: f32[1]) { return x } apply }
   |                                              ^
)--"},
    {"expect_item",
     "test t { graph(x: f32[1]) { return x } expect }",
     R"--(test.rules:1:47: error: expected 'count(op) == n', 'equivalent(...)' or 'graph { ... }'
 1 | test t { graph(x: f32[1]) { return x } expect }
   |                                               ^
)--"},
    {"test_name",
     "test { }",
     R"--(test.rules:1:6: error: expected a test name after 'test'
 1 | test { }
   |      ^
)--"},
    {"open_test",
     "test t graph(x: f32[1]) { return x }",
     R"--(test.rules:1:8: error: expected '{' after the test name
 1 | test t graph(x: f32[1]) { return x }
   |        ^~~~~
)--"},
    {"test_graph",
     "test t { expect count(relu) == 0 }",
     R"--(test.rules:1:10: error: expected 'graph(...) { ... }' at the start of the test
 1 | test t { expect count(relu) == 0 }
   |          ^~~~~~
)--"},
    {"close_test",
     "test t { graph(x: f32[1]) { return x } count(relu) == 0 }",
     R"--(test.rules:1:40: error: expected 'apply', 'expect' or '}' in the test
 1 | test t { graph(x: f32[1]) { return x } count(relu) == 0 }
   |                                        ^~~~~
test.rules:1:8: note: to match this '{'
 1 | test t { graph(x: f32[1]) { return x } count(relu) == 0 }
   |        ^
)--"},
    {"decl_after_doc",
     "/// a doc comment with nothing after it",
     R"--(test.rules:1:40: error: expected a declaration after the doc comment
 1 | /// a doc comment with nothing after it
   |                                        ^
)--"},
    {"end_of_file",
     "rules r { }",
     R"--(test.rules:1:1: error: expected 'rule', 'test', 'phase', 'opclass' or 'import'
 1 | rules r { }
   | ^~~~~
)--"},
    {"integer_too_large",
     "rule r { pattern(x) { return relu(x, 99999999999999999999) } replacement { return x } }",
     R"--(test.rules:1:38: error: integer '99999999999999999999' is too large
 1 | rule r { pattern(x) { return relu(x, 99999999999999999999) } replacement { return x } }
   |                                      ^~~~~~~~~~~~~~~~~~~~
)--"},
    {"float_out_of_range",
     "rule r { pattern(x) { return relu(x, 1e999) } replacement { return x } }",
     R"--(test.rules:1:38: error: number '1e999' is out of range
 1 | rule r { pattern(x) { return relu(x, 1e999) } replacement { return x } }
   |                                      ^~~~~
)--"},
};
// clang-format on

}  // namespace

TEST_CASE("every grammar commit point reports its message at the exact position",
          "[dsl][grammar]") {
  const SyntaxErrorCase& c =
      GENERATE(from_range(std::begin(kSyntaxErrors), std::end(kSyntaxErrors)));
  INFO("commit point: " << c.rule);
  graft::testing::ParsedRules parsed = parse_text(c.input);
  CHECK(parsed.file == nullptr);
  CHECK(parsed.diagnostics == c.expected);
}

TEST_CASE("an unterminated block is reported at the end of the file with its opening brace",
          "[dsl][grammar]") {
  graft::testing::ParsedRules parsed = parse_text(
      "rule r {\n"
      "  pattern(x) {\n"
      "    return relu(x)\n"
      "  }\n"
      "  replacement {\n"
      "    return x\n"
      "\n");
  CHECK(parsed.file == nullptr);
  CHECK(parsed.diagnostics ==
        "test.rules:6:13: error: expected '}' after the return statement\n"
        " 6 |     return x\n"
        "   |             ^\n"
        "test.rules:5:15: note: to match this '{'\n"
        " 5 |   replacement {\n"
        "   |               ^\n");
}

TEST_CASE("a missing return is reported at the closing brace of the block", "[dsl][grammar]") {
  graft::testing::ParsedRules parsed = parse_text(
      "rule r {\n"
      "  pattern(x) {\n"
      "    y = relu(x)\n"
      "  }\n"
      "  replacement { return x }\n"
      "}\n");
  CHECK(parsed.diagnostics ==
        "test.rules:4:3: error: expected 'name = expression' or 'return'\n"
        " 4 |   }\n"
        "   |   ^\n");
}

TEST_CASE("deeply nested expressions stop at the nesting limit with a diagnostic",
          "[dsl][grammar]") {
  int depth = graft::dsl::kMaxNestingDepth + 10;
  std::string text = "rule r { pattern(x) { return " +
                     std::string(static_cast<size_t>(depth), '(') + "x" +
                     std::string(static_cast<size_t>(depth), ')') + " } replacement { return x } }";
  graft::testing::ParsedRules parsed = parse_text(text);
  CHECK(parsed.file == nullptr);
  CHECK(parsed.diagnostics.rfind("test.rules:1:", 0) == 0);
  CHECK(parsed.diagnostics.find("error: expression is nested too deeply (more than 256 levels)") !=
        std::string::npos);

  std::string minus = "rule r { pattern(x) { return ";
  for (int i = 0; i < depth; ++i) minus += "- ";
  parsed = parse_text(minus + "x } replacement { return x } }");
  CHECK(parsed.diagnostics.find("error: expression is nested too deeply") != std::string::npos);

  // Well below the limit, nesting is fine.
  parsed = parse_text("rule r { pattern(x) { return " + std::string(100, '(') + "x" +
                      std::string(100, ')') + " } replacement { return x } }");
  CHECK(parsed.diagnostics == "");
  CHECK(parsed.file != nullptr);
}

TEST_CASE("keywords are whole words, so identifiers may start with one", "[dsl][grammar]") {
  graft::testing::ParsedRules parsed = parse_text(
      "rule rules_x { pattern(input, pattern_x, none_y) { return add(input, pattern_x, "
      "alpha=none_y) } "
      "replacement { return input } }");
  CHECK(parsed.diagnostics == "");
  REQUIRE(parsed.file != nullptr);
  CHECK(parsed.file->decls.size() == 1);
}

TEST_CASE("param(w) is a predicate in a where clause; 'buffer' is a word only after a param's type",
          "[dsl][grammar]") {
  graft::testing::ParsedRules parsed = parse_text(
      "rule r { pattern(x, buffer) { return x + buffer } where param(buffer), not buffer(buffer) "
      "replacement { return x } }\n"
      "test t { graph { buffer = param f32[2] buffer; return relu(buffer) } }");
  CHECK(parsed.diagnostics == "");
  REQUIRE(parsed.file != nullptr);
  const auto* rule = graft::dsl::ast::dyn_cast<graft::dsl::ast::RuleDecl>(parsed.file->decls[0]);
  REQUIRE(rule != nullptr);
  const auto* where = graft::dsl::ast::dyn_cast<graft::dsl::ast::WhereClause>(rule->clauses[0]);
  REQUIRE(where != nullptr);
  const auto* call =
      graft::dsl::ast::dyn_cast<graft::dsl::ast::CallExpr>(where->conditions[0]->lhs);
  REQUIRE(call != nullptr);
  CHECK(call->ops[0]->text == "param");
  // After 'positive', not before it.
  parsed = parse_text("test t { graph { b = param f32[2] buffer positive; return relu(b) } }");
  CHECK(parsed.file == nullptr);
}

TEST_CASE("an op named like a keyword is called by name: where(c, x, y) is the op, not a clause",
          "[dsl][grammar]") {
  graft::testing::ParsedRules parsed = parse_text(
      "rule r { pattern(x) { return where(gt(x, 0.0), x, relu(x)) } where rank(x) == 4 "
      "replacement { return where(gt(x, 0.0), x, x) } }");
  CHECK(parsed.diagnostics == "");
  REQUIRE(parsed.file != nullptr);
  const auto* rule = graft::dsl::ast::dyn_cast<graft::dsl::ast::RuleDecl>(parsed.file->decls[0]);
  REQUIRE(rule != nullptr);
  const auto* call =
      graft::dsl::ast::dyn_cast<graft::dsl::ast::CallExpr>(rule->pattern->body->ret->values[0]);
  REQUIRE(call != nullptr);
  CHECK(call->ops[0]->text == "where");
  CHECK(rule->clauses.size() == 1);
  // A keyword is still no name of a value.
  parsed = parse_text("rule r { pattern(x) { return where } replacement { return x } }");
  CHECK(parsed.file == nullptr);
}
