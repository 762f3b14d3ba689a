// The message of every must<> commit point of dsl/grammar.h, and the PEGTL control that raises
// them. must_if<> static_asserts that each rule it raises for has a message, so a commit point
// added to the grammar without a message here does not compile. Included only by parser.cpp
// and the grammar tests.
//
// Messages follow the house style: lowercase, no trailing period, code in single quotes, and
// they say what was expected. parser.cpp adds "to match this '('" notes for messages that name
// a closing ')', ']' or '}'.
#pragma once

#include <tao/pegtl.hpp>

#include "dsl/grammar.h"

// clang-format off
namespace graft::dsl::grammar {

template< typename > inline constexpr const char* error_message = nullptr;

// ** literals **
template<> inline constexpr auto error_message< exponent_digits > = "expected digits in the exponent of the number";
template<> inline constexpr auto error_message< number_end > = "invalid suffix on number";
template<> inline constexpr auto error_message< escape_char > = "unknown escape sequence in string";
template<> inline constexpr auto error_message< string_body > = "unterminated string";
template<> inline constexpr auto error_message< attr_var_name > = "expected a variable name after '$'";
template<> inline constexpr auto error_message< tolerance_value > = "expected a number after '~'";

// ** expressions **
template<> inline constexpr auto error_message< arg_value > = "expected a value after '='";
template<> inline constexpr auto error_message< set_or_range > = "expected a set '{a, b}' or a range 'lo..hi' after 'in'";
template<> inline constexpr auto error_message< close_args > = "expected ',' or ')' after the argument";
template<> inline constexpr auto error_message< alt_op_name > = "expected an op name after '|'";
template<> inline constexpr auto error_message< close_alts > = "expected '|' or ')' in the op alternatives";
template<> inline constexpr auto error_message< alt_call_args > = "expected '(' and the arguments after the op alternatives";
template<> inline constexpr auto error_message< ordered_target > = "expected an op call after 'ordered'";
template<> inline constexpr auto error_message< paren_inner > = "expected an expression after '('";
template<> inline constexpr auto error_message< close_paren > = "expected ')' after the expression";
template<> inline constexpr auto error_message< close_list > = "expected ',' or ']' in the list";
template<> inline constexpr auto error_message< unary_operand > = "expected an expression after '-'";
template<> inline constexpr auto error_message< mul_operand > = "expected an expression after the operator";
template<> inline constexpr auto error_message< add_operand > = "expected an expression after the operator";
template<> inline constexpr auto error_message< coalesce_operand > = "expected an expression after '?\?'";
template<> inline constexpr auto error_message< set_item > = "expected a value in the set";
template<> inline constexpr auto error_message< close_set > = "expected ',' or '}' in the set";
template<> inline constexpr auto error_message< range_hi > = "expected the upper bound of the range after '..'";
template<> inline constexpr auto error_message< cmp_rhs > = "expected an expression after the comparison";

// ** statements and blocks **
template<> inline constexpr auto error_message< open_shape > = "expected '[' and the shape after the dtype (write '[]' for a scalar)";
template<> inline constexpr auto error_message< shape_dim > = "expected a dimension (a number or a symbol)";
template<> inline constexpr auto error_message< close_shape > = "expected ',' or ']' in the shape";
template<> inline constexpr auto error_message< param_type > = "expected a type such as 'f32[4, 3]' after 'param'";
template<> inline constexpr auto error_message< param_init > = "expected the values of the param after '='";
template<> inline constexpr auto error_message< assign_value > = "expected an expression after '='";
template<> inline constexpr auto error_message< return_value > = "expected a value to return";
template<> inline constexpr auto error_message< block_return > = "expected 'name = expression' or 'return'";
template<> inline constexpr auto error_message< close_block > = "expected '}' after the return statement";

// ** rules **
template<> inline constexpr auto error_message< open_params > = "expected '(' and the parameters after 'pattern'";
template<> inline constexpr auto error_message< close_params > = "expected ',' or ')' after the pattern parameter";
template<> inline constexpr auto error_message< pattern_body > = "expected '{' to start the pattern body";
template<> inline constexpr auto error_message< replacement_body > = "expected '{' after 'replacement'";
template<> inline constexpr auto error_message< where_condition > = "expected a condition";
template<> inline constexpr auto error_message< benefit_value > = "expected a number after 'benefit'";
template<> inline constexpr auto error_message< rule_name > = "expected a rule name after 'rule'";
template<> inline constexpr auto error_message< open_rule > = "expected '{' after the rule name";
template<> inline constexpr auto error_message< rule_pattern > = "expected 'pattern(...)' at the start of the rule";
template<> inline constexpr auto error_message< rule_replacement > = "expected 'where', 'benefit' or 'replacement'";
template<> inline constexpr auto error_message< close_rule > = "expected '}' at the end of the rule";

// ** other declarations **
template<> inline constexpr auto error_message< import_path > = "expected a quoted file name after 'import'";
template<> inline constexpr auto error_message< opclass_name > = "expected a name after 'opclass'";
template<> inline constexpr auto error_message< opclass_eq > = "expected '=' after the opclass name";
template<> inline constexpr auto error_message< opclass_member > = "expected an op name";
template<> inline constexpr auto error_message< phase_name > = "expected a phase name after 'phase'";
template<> inline constexpr auto error_message< phase_mode > = "expected 'once' or 'fixpoint' after the phase name";
template<> inline constexpr auto error_message< max_kw > = "expected 'max' in 'fixpoint(max=K)'";
template<> inline constexpr auto error_message< max_eq > = "expected '=' after 'max'";
template<> inline constexpr auto error_message< max_value > = "expected the iteration limit after 'max='";
template<> inline constexpr auto error_message< close_fixpoint > = "expected ')' after the iteration limit";
template<> inline constexpr auto error_message< open_phase > = "expected '{' and the rule names of the phase";
template<> inline constexpr auto error_message< close_phase > = "expected ',' or '}' in the phase's rule list";
template<> inline constexpr auto error_message< input_colon > = "expected ':' and a type after the graph input name";
template<> inline constexpr auto error_message< graph_input_type > = "expected a type such as 'f32[1, 3, 8, 8]'";
template<> inline constexpr auto error_message< close_inputs > = "expected ',' or ')' after the graph input";
template<> inline constexpr auto error_message< graph_body > = "expected '{' to start the graph body";
template<> inline constexpr auto error_message< apply_name > = "expected a rule or phase name after 'apply'";
template<> inline constexpr auto error_message< expect_item > = "expected 'count(op) == n', 'equivalent(...)' or 'graph { ... }'";
template<> inline constexpr auto error_message< test_name > = "expected a test name after 'test'";
template<> inline constexpr auto error_message< open_test > = "expected '{' after the test name";
template<> inline constexpr auto error_message< test_graph > = "expected 'graph(...) { ... }' at the start of the test";
template<> inline constexpr auto error_message< close_test > = "expected 'apply', 'expect' or '}' in the test";

// ** file **
template<> inline constexpr auto error_message< decl_after_doc > = "expected a declaration after the doc comment";
template<> inline constexpr auto error_message< end_of_file > = "expected 'rule', 'test', 'phase', 'opclass' or 'import'";

/// must_if<> reads the messages through this wrapper (it takes a class, not a variable template).
struct errors {
   template< typename Rule > static constexpr auto message = error_message< Rule >;
};

}  // namespace graft::dsl::grammar
// clang-format on
