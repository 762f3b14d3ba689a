// The PEG grammar of .rules files, as PEGTL rules only: no actions and no strings (the error
// messages live in grammar_errors.h, the AST builder in parser.cpp). Included only by .cpp
// files so PEGTL stays private to graft::dsl. docs/rules.md is the user-facing reference.
//
// Conventions:
// - A rule never ends with whitespace: `sp` goes *between* elements, so the text an action
//   sees is exactly the construct and its SourceRange has no trailing blanks.
// - `must<X>` marks a commit point; every X used there has a message in grammar_errors.h, and
//   such an X is never used where it may fail locally (must_if would turn that into an error).
// - Keywords are pegtl::keyword<>, so `rules_x` or `input` are still identifiers.
#pragma once

#include <tao/pegtl.hpp>

// clang-format off
namespace graft::dsl::grammar {

namespace pegtl = tao::pegtl;
using pegtl::at;
using pegtl::digit;
using pegtl::eof;
using pegtl::eolf;
using pegtl::identifier;
using pegtl::identifier_other;
using pegtl::must;
using pegtl::not_at;
using pegtl::not_one;
using pegtl::one;
using pegtl::opt;
using pegtl::plus;
using pegtl::seq;
using pegtl::sor;
using pegtl::space;
using pegtl::star;
using pegtl::string;
using pegtl::until;

// ** whitespace and comments **
// `#` starts a comment. `///` lines before a top-level declaration are its doc comment; inside
// a declaration they are plain comments.
struct comment : seq< one< '#' >, until< eolf > > {};
struct doc_line : seq< string< '/', '/', '/' >, until< eolf > > {};
struct inner_doc_line : seq< string< '/', '/', '/' >, until< eolf > > {};
struct sp : star< sor< space, comment, inner_doc_line > > {};
struct sp_top : star< sor< space, comment > > {};

// ** keywords **
struct kw_import : TAO_PEGTL_KEYWORD( "import" ) {};
struct kw_opclass : TAO_PEGTL_KEYWORD( "opclass" ) {};
struct kw_rule : TAO_PEGTL_KEYWORD( "rule" ) {};
struct kw_pattern : TAO_PEGTL_KEYWORD( "pattern" ) {};
struct kw_where : TAO_PEGTL_KEYWORD( "where" ) {};
struct kw_benefit : TAO_PEGTL_KEYWORD( "benefit" ) {};
struct kw_replacement : TAO_PEGTL_KEYWORD( "replacement" ) {};
struct kw_return : TAO_PEGTL_KEYWORD( "return" ) {};
struct kw_phase : TAO_PEGTL_KEYWORD( "phase" ) {};
struct kw_test : TAO_PEGTL_KEYWORD( "test" ) {};
struct kw_graph : TAO_PEGTL_KEYWORD( "graph" ) {};
struct kw_expect : TAO_PEGTL_KEYWORD( "expect" ) {};
struct kw_apply : TAO_PEGTL_KEYWORD( "apply" ) {};
struct kw_param : TAO_PEGTL_KEYWORD( "param" ) {};
struct kw_ordered : TAO_PEGTL_KEYWORD( "ordered" ) {};
struct kw_not : TAO_PEGTL_KEYWORD( "not" ) {};
struct kw_in : TAO_PEGTL_KEYWORD( "in" ) {};
struct kw_none : TAO_PEGTL_KEYWORD( "none" ) {};
struct kw_true : TAO_PEGTL_KEYWORD( "true" ) {};
struct kw_false : TAO_PEGTL_KEYWORD( "false" ) {};
// Contextual words: not reserved, recognised only where they can appear.
struct kw_once : TAO_PEGTL_KEYWORD( "once" ) {};
struct kw_fixpoint : TAO_PEGTL_KEYWORD( "fixpoint" ) {};
struct kw_max : TAO_PEGTL_KEYWORD( "max" ) {};
struct kw_positive : TAO_PEGTL_KEYWORD( "positive" ) {};
struct kw_buffer : TAO_PEGTL_KEYWORD( "buffer" ) {};

struct reserved : sor< kw_import, kw_opclass, kw_rule, kw_pattern, kw_where, kw_benefit,
                       kw_replacement, kw_return, kw_phase, kw_test, kw_graph, kw_expect,
                       kw_apply, kw_param, kw_ordered, kw_not, kw_in, kw_none, kw_true,
                       kw_false > {};
struct ident : seq< not_at< reserved >, identifier > {};

// ** literals **
struct exponent_digits : plus< digit > {};
struct number_end : not_at< identifier_other > {};
struct fraction : seq< one< '.' >, plus< digit > > {};
struct exponent : seq< one< 'e', 'E' >, opt< one< '+', '-' > >, must< exponent_digits > > {};
// `inf` is the one number without digits (masked_fill's -inf fill value); a keyword, so
// `info` stays a name.
struct inf_number : TAO_PEGTL_KEYWORD( "inf" ) {};
struct number : sor< inf_number,
                     seq< plus< digit >, opt< fraction >, opt< exponent >, must< number_end > > > {};

struct escape_char : one< '"', '\\', 'n', 't' > {};
struct escape : seq< one< '\\' >, must< escape_char > > {};
struct string_char : sor< escape, not_one< '"', '\\', '\n', '\r' > > {};
struct string_body : seq< star< string_char >, one< '"' > > {};
struct string_lit : seq< one< '"' >, must< string_body > > {};

struct true_lit : kw_true {};
struct false_lit : kw_false {};
struct none_lit : kw_none {};
struct wildcard : seq< one< '_' >, not_at< identifier_other > > {};
struct attr_var_name : seq< ident > {};
struct attr_var : seq< one< '$' >, must< attr_var_name > > {};
struct ellipsis : string< '.', '.', '.' > {};
struct name_ref : seq< ident > {};

// ** expressions **
// Precedence, loosest first: `??` (right-associative), `+ -`, `* /`, unary `-`, primary.
struct expr;

struct signed_number : seq< opt< one< '-' >, sp >, number > {};
struct tolerance_value : seq< signed_number > {};
struct literal_number : seq< number, opt< sp, one< '~' >, sp, must< tolerance_value > > > {};

struct open_paren : one< '(' > {};
struct close_args : one< ')' > {};
struct arg_value : seq< expr > {};
struct set_or_range;
struct keyword_arg : seq< ident, sp, one< '=' >, not_at< one< '=' > >, sp, must< arg_value > > {};
struct in_arg : seq< ident, sp, kw_in, sp, must< set_or_range > > {};
struct positional_arg : seq< expr > {};
struct arg : sor< keyword_arg, in_arg, positional_arg > {};
struct args : seq< arg, star< sp, one< ',' >, sp, arg >, opt< sp, one< ',' > > > {};
struct call_args : seq< open_paren, sp, opt< args >, sp, must< close_args > > {};

// An op name before '(' may be a keyword: `where` is both a clause and an op.
struct callee : seq< identifier > {};
struct call : seq< callee, sp, call_args > {};
struct alt_op_name : seq< ident > {};
struct close_alts : one< ')' > {};
struct alt_call_args : seq< call_args > {};
struct alt_call : seq< open_paren, sp, ident, sp, one< '|' >, sp, must< alt_op_name >,
                       star< sp, one< '|' >, sp, must< alt_op_name > >, sp, must< close_alts >,
                       sp, must< alt_call_args > > {};
struct ordered_target : sor< alt_call, call > {};
struct ordered_call : seq< kw_ordered, sp, must< ordered_target > > {};

struct paren_inner : seq< expr > {};
struct close_paren : one< ')' > {};
struct paren_expr : seq< open_paren, sp, must< paren_inner >, sp, must< close_paren > > {};

struct open_bracket : one< '[' > {};
struct close_list : one< ']' > {};
struct list_item : sor< ellipsis, expr > {};
struct list_lit : seq< open_bracket, sp,
                       opt< list_item, star< sp, one< ',' >, sp, list_item >, opt< sp, one< ',' > > >,
                       sp, must< close_list > > {};

struct primary : sor< ordered_call, alt_call, call, paren_expr, list_lit, literal_number,
                      string_lit, true_lit, false_lit, none_lit, attr_var, wildcard,
                      name_ref > {};

struct unary;
struct unary_operand : seq< unary > {};
struct neg_expr : seq< one< '-' >, sp, must< unary_operand > > {};
struct unary : sor< neg_expr, primary > {};

struct mul_op : one< '*', '/' > {};
struct mul_operand : seq< unary > {};
struct mul_expr : seq< unary, star< sp, mul_op, sp, must< mul_operand > > > {};

struct add_op : one< '+', '-' > {};
struct add_operand : seq< mul_expr > {};
struct add_expr : seq< mul_expr, star< sp, add_op, sp, must< add_operand > > > {};

struct coalesce_op : string< '?', '?' > {};
struct coalesce_operand : seq< add_expr > {};
struct coalesce_expr : seq< add_expr, star< sp, coalesce_op, sp, must< coalesce_operand > > > {};

struct expr : seq< coalesce_expr > {};

// ** sets, ranges and conditions **
struct open_set : one< '{' > {};
struct close_set : one< '}' > {};
struct set_item : seq< expr > {};
struct set_lit : seq< open_set, sp, must< set_item >, star< sp, one< ',' >, sp, must< set_item > >,
                      sp, must< close_set > > {};
struct range_hi : seq< signed_number > {};
struct range_lit : seq< signed_number, sp, string< '.', '.' >, sp, must< range_hi > > {};
struct set_or_range : sor< set_lit, range_lit > {};

struct not_kw : kw_not {};
struct in_kw : kw_in {};
struct cmp_op : sor< string< '=', '=' >, string< '!', '=' >, string< '<', '=' >,
                     string< '>', '=' >, one< '<' >, one< '>' > > {};
struct cmp_rhs : seq< expr > {};
struct condition : seq< opt< not_kw, sp >, expr,
                        opt< sp, sor< seq< cmp_op, sp, must< cmp_rhs > >,
                                      seq< in_kw, sp, must< set_or_range > > > > > {};

// ** statements and blocks **
struct type_dim : sor< number, ident > {};
struct open_shape : one< '[' > {};
struct close_shape : one< ']' > {};
struct shape_dim : seq< type_dim > {};
struct type_spec : seq< ident, sp, must< open_shape >, sp,
                        opt< type_dim, star< sp, one< ',' >, sp, must< shape_dim > > >,
                        sp, must< close_shape > > {};
struct param_type : seq< type_spec > {};
struct param_init : seq< expr > {};
struct positive_kw : kw_positive {};
struct buffer_kw : kw_buffer {};
struct param_def : seq< kw_param, sp, must< param_type >, opt< sp, positive_kw >,
                        opt< sp, buffer_kw >, opt< sp, one< '=' >, sp, must< param_init > > > {};

struct assign_value : sor< param_def, expr > {};
struct assign_stmt : seq< ident, sp, one< '=' >, not_at< one< '=' > >, sp, must< assign_value > > {};
struct return_value : seq< expr > {};
struct return_stmt : seq< kw_return, sp, must< return_value >,
                          star< sp, one< ',' >, sp, must< return_value > > > {};
struct block_return : seq< return_stmt > {};
struct open_brace : one< '{' > {};
struct close_block : one< '}' > {};
struct semi : opt< one< ';' >, sp > {};
struct block : seq< open_brace, sp, star< assign_stmt, sp, semi >, must< block_return >, sp,
                    semi, must< close_block > > {};

// ** rules **
struct optional_mark : one< '?' > {};
struct pattern_param : seq< ident, opt< sp, optional_mark > > {};
struct pattern_params : seq< pattern_param, star< sp, one< ',' >, sp, pattern_param >,
                             opt< sp, one< ',' > > > {};
struct open_params : one< '(' > {};
struct close_params : one< ')' > {};
struct pattern_body : seq< block > {};
struct pattern_block : seq< kw_pattern, sp, must< open_params >, sp, opt< pattern_params >, sp,
                            must< close_params >, sp, must< pattern_body > > {};
struct replacement_body : seq< block > {};
struct replacement_block : seq< kw_replacement, sp, must< replacement_body > > {};

struct where_condition : seq< condition > {};
struct where_clause : seq< kw_where, sp, must< where_condition >,
                           star< sp, one< ',' >, sp, must< where_condition > > > {};
struct benefit_value : seq< number > {};
struct benefit_clause : seq< kw_benefit, sp, must< benefit_value > > {};
struct rule_clause : sor< where_clause, benefit_clause > {};

struct rule_name : seq< ident > {};
struct open_rule : one< '{' > {};
struct rule_pattern : seq< pattern_block > {};
struct rule_replacement : seq< replacement_block > {};
struct close_rule : one< '}' > {};
struct rule_decl : seq< kw_rule, sp, must< rule_name >, sp, must< open_rule >, sp,
                        must< rule_pattern >, sp, star< rule_clause, sp >, must< rule_replacement >,
                        sp, must< close_rule > > {};

// ** other declarations **
struct import_path : seq< string_lit > {};
struct import_decl : seq< kw_import, sp, must< import_path > > {};

struct opclass_name : seq< ident > {};
struct opclass_eq : one< '=' > {};
struct opclass_member : seq< ident > {};
struct opclass_decl : seq< kw_opclass, sp, must< opclass_name >, sp, must< opclass_eq >, sp,
                           must< opclass_member >, star< sp, one< '|' >, sp, must< opclass_member > > > {};

struct phase_name : seq< ident > {};
struct once_kw : kw_once {};
struct fixpoint_kw : kw_fixpoint {};
struct max_kw : kw_max {};
struct max_eq : one< '=' > {};
struct max_value : seq< signed_number > {};
struct close_fixpoint : one< ')' > {};
struct fixpoint_mode : seq< fixpoint_kw, opt< sp, one< '(' >, sp, must< max_kw >, sp, must< max_eq >,
                                              sp, must< max_value >, sp, must< close_fixpoint > > > {};
struct phase_mode : sor< once_kw, fixpoint_mode > {};
struct open_phase : one< '{' > {};
struct close_phase : one< '}' > {};
struct phase_rule : seq< ident > {};
struct phase_decl : seq< kw_phase, sp, must< phase_name >, sp, must< phase_mode >, sp,
                         must< open_phase >, sp,
                         opt< phase_rule, star< sp, one< ',' >, sp, phase_rule >, opt< sp, one< ',' > > >,
                         sp, must< close_phase > > {};

struct graph_input_type : seq< type_spec > {};
struct input_colon : one< ':' > {};
struct graph_input : seq< ident, sp, must< input_colon >, sp, must< graph_input_type > > {};
struct close_inputs : one< ')' > {};
struct graph_inputs : seq< open_paren, sp,
                           opt< graph_input, star< sp, one< ',' >, sp, graph_input >, opt< sp, one< ',' > > >,
                           sp, must< close_inputs > > {};
struct graph_body : seq< block > {};
struct graph_block : seq< kw_graph, sp, opt< graph_inputs, sp >, must< graph_body > > {};

struct apply_name : seq< ident > {};
struct apply_clause : seq< kw_apply, sp, must< apply_name >, star< sp, one< ',' >, sp, must< apply_name > > > {};
struct expectation : sor< graph_block, condition > {};
struct expect_item : seq< expectation > {};
struct expect_clause : seq< kw_expect, sp, must< expect_item >, star< sp, one< ',' >, sp, must< expect_item > > > {};
struct test_clause : sor< apply_clause, expect_clause > {};

struct test_name : seq< ident > {};
struct open_test : one< '{' > {};
struct test_graph : seq< graph_block > {};
struct close_test : one< '}' > {};
struct test_decl : seq< kw_test, sp, must< test_name >, sp, must< open_test >, sp, must< test_graph >,
                        sp, star< test_clause, sp >, must< close_test > > {};

// ** file **
struct bare_decl : sor< import_decl, opclass_decl, rule_decl, phase_decl, test_decl > {};
struct decl_after_doc : seq< bare_decl > {};
struct documented_decl : seq< plus< doc_line, sp_top >, must< decl_after_doc > > {};
struct decl : sor< documented_decl, bare_decl > {};
struct end_of_file : eof {};
struct file : seq< sp_top, star< decl, sp_top >, must< end_of_file > > {};

}  // namespace graft::dsl::grammar
// clang-format on
