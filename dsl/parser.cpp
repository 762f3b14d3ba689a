// The parser: PEGTL actions that feed the TreeBuilder, the control that keeps the builder's
// stack in step with backtracking and raises the grammar's error messages, and the one place
// where pegtl::parse_error becomes a Diagnostic.
#include "dsl/parser.h"

#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/limit_depth.hpp>

#include "dsl/grammar.h"
#include "dsl/grammar_errors.h"
#include "dsl/tree_builder.h"

namespace graft::dsl {
namespace {

namespace pegtl = tao::pegtl;
namespace g = grammar;

// ** actions ** One builder call per rule that produces a node.

template <typename Rule>
struct action : pegtl::nothing<Rule> {};

template <void (TreeBuilder::*Build)(SourceRange)>
struct build {
  template <typename ActionInput>
  static void apply(const ActionInput& in, TreeBuilder& b) {
    (b.*Build)(b.range(in.begin(), in.end()));
  }
};

template <bool Value>
struct build_bool {
  template <typename ActionInput>
  static void apply(const ActionInput& in, TreeBuilder& b) {
    b.bool_literal(b.range(in.begin(), in.end()), Value);
  }
};

template <bool IsIn>
struct build_arg {
  template <typename ActionInput>
  static void apply(const ActionInput& in, TreeBuilder& b) {
    b.arg(b.range(in.begin(), in.end()), IsIn);
  }
};

// Nesting is bounded where the grammar recurses: every expression level passes through
// `expr` (parentheses, arguments, lists) or `neg_expr` (a chain of '-').
template <>
struct action<g::expr> : pegtl::limit_depth<kMaxNestingDepth> {};
template <>
struct action<g::neg_expr> : pegtl::limit_depth<kMaxNestingDepth> {
  template <typename ActionInput>
  static void apply(const ActionInput& in, TreeBuilder& b) {
    b.negate(b.range(in.begin(), in.end()));
  }
};

template <>
struct action<g::ident> : build<&TreeBuilder::ident> {};
template <>
struct action<g::callee> : build<&TreeBuilder::ident> {};
template <>
struct action<g::doc_line> : build<&TreeBuilder::doc_line> {};

// Tokens: openers (for "to match this" notes), operators and flag words.
template <>
struct action<g::open_paren> : build<&TreeBuilder::token> {};
template <>
struct action<g::open_bracket> : build<&TreeBuilder::token> {};
template <>
struct action<g::open_brace> : build<&TreeBuilder::token> {};
template <>
struct action<g::open_params> : build<&TreeBuilder::token> {};
template <>
struct action<g::open_rule> : build<&TreeBuilder::token> {};
template <>
struct action<g::open_phase> : build<&TreeBuilder::token> {};
template <>
struct action<g::open_test> : build<&TreeBuilder::token> {};
template <>
struct action<g::open_set> : build<&TreeBuilder::token> {};
template <>
struct action<g::open_shape> : build<&TreeBuilder::token> {};
template <>
struct action<g::mul_op> : build<&TreeBuilder::token> {};
template <>
struct action<g::add_op> : build<&TreeBuilder::token> {};
template <>
struct action<g::coalesce_op> : build<&TreeBuilder::token> {};
template <>
struct action<g::cmp_op> : build<&TreeBuilder::token> {};
template <>
struct action<g::not_kw> : build<&TreeBuilder::token> {};
template <>
struct action<g::in_kw> : build<&TreeBuilder::token> {};
template <>
struct action<g::optional_mark> : build<&TreeBuilder::token> {};
template <>
struct action<g::positive_kw> : build<&TreeBuilder::token> {};
template <>
struct action<g::buffer_kw> : build<&TreeBuilder::token> {};
template <>
struct action<g::once_kw> : build<&TreeBuilder::token> {};
template <>
struct action<g::fixpoint_kw> : build<&TreeBuilder::token> {};

// Literals.
template <>
struct action<g::number> {
  template <typename ActionInput>
  static void apply(const ActionInput& in, TreeBuilder& b) {
    if (std::optional<std::string> error = b.number(b.range(in.begin(), in.end()))) {
      throw pegtl::parse_error(*error, in);
    }
  }
};
template <>
struct action<g::signed_number> : build<&TreeBuilder::signed_number> {};
template <>
struct action<g::string_lit> : build<&TreeBuilder::string_literal> {};
template <>
struct action<g::true_lit> : build_bool<true> {};
template <>
struct action<g::false_lit> : build_bool<false> {};
template <>
struct action<g::none_lit> : build<&TreeBuilder::none_literal> {};
template <>
struct action<g::wildcard> : build<&TreeBuilder::wildcard> {};
template <>
struct action<g::ellipsis> : build<&TreeBuilder::ellipsis> {};
template <>
struct action<g::attr_var> : build<&TreeBuilder::attr_var> {};
template <>
struct action<g::name_ref> : build<&TreeBuilder::name> {};
template <>
struct action<g::literal_number> : build<&TreeBuilder::literal_number> {};

// Expressions.
template <>
struct action<g::keyword_arg> : build_arg<false> {};
template <>
struct action<g::in_arg> : build_arg<true> {};
template <>
struct action<g::positional_arg> : build_arg<false> {};
template <>
struct action<g::call> : build<&TreeBuilder::call> {};
template <>
struct action<g::alt_call> : build<&TreeBuilder::call> {};
template <>
struct action<g::ordered_call> : build<&TreeBuilder::ordered_call> {};
template <>
struct action<g::paren_expr> : build<&TreeBuilder::paren> {};
template <>
struct action<g::list_lit> : build<&TreeBuilder::list> {};
template <>
struct action<g::set_lit> : build<&TreeBuilder::set> {};
template <>
struct action<g::range_lit> : build<&TreeBuilder::range_literal> {};
template <>
struct action<g::mul_expr> : build<&TreeBuilder::binary_left> {};
template <>
struct action<g::add_expr> : build<&TreeBuilder::binary_left> {};
template <>
struct action<g::coalesce_expr> : build<&TreeBuilder::binary_right> {};
template <>
struct action<g::condition> : build<&TreeBuilder::condition> {};

// Statements, blocks, clauses and declarations.
template <>
struct action<g::type_spec> : build<&TreeBuilder::type_spec> {};
template <>
struct action<g::param_def> : build<&TreeBuilder::param_def> {};
template <>
struct action<g::assign_stmt> : build<&TreeBuilder::assign> {};
template <>
struct action<g::return_stmt> : build<&TreeBuilder::return_stmt> {};
template <>
struct action<g::block> : build<&TreeBuilder::block> {};
template <>
struct action<g::pattern_param> : build<&TreeBuilder::param> {};
template <>
struct action<g::graph_input> : build<&TreeBuilder::param> {};
template <>
struct action<g::pattern_block> : build<&TreeBuilder::pattern> {};
template <>
struct action<g::replacement_block> : build<&TreeBuilder::replacement> {};
template <>
struct action<g::where_clause> : build<&TreeBuilder::where> {};
template <>
struct action<g::benefit_clause> : build<&TreeBuilder::benefit> {};
template <>
struct action<g::rule_decl> : build<&TreeBuilder::rule> {};
template <>
struct action<g::import_decl> : build<&TreeBuilder::import> {};
template <>
struct action<g::opclass_decl> : build<&TreeBuilder::opclass> {};
template <>
struct action<g::phase_decl> : build<&TreeBuilder::phase> {};
template <>
struct action<g::graph_block> : build<&TreeBuilder::graph> {};
template <>
struct action<g::apply_clause> : build<&TreeBuilder::apply> {};
template <>
struct action<g::expect_clause> : build<&TreeBuilder::expect> {};
template <>
struct action<g::test_decl> : build<&TreeBuilder::test> {};
template <>
struct action<g::documented_decl> : build<&TreeBuilder::documented> {};
template <>
struct action<g::file> : build<&TreeBuilder::file> {};

// ** control ** Brackets every rule with the builder's mark/unmark/rewind (see
// tree_builder.h) and lets must_if raise the messages of grammar_errors.h.

template <typename Rule>
struct tracking : pegtl::normal<Rule> {
  template <typename ParseInput>
  static void start(const ParseInput& /*in*/, TreeBuilder& b) {
    b.mark();
  }
  template <typename ParseInput>
  static void success(const ParseInput& /*in*/, TreeBuilder& b) {
    b.unmark();
  }
  template <typename ParseInput>
  static void failure(const ParseInput& /*in*/, TreeBuilder& b) {
    b.rewind();
  }
};

template <typename Rule>
using control = pegtl::must_if<g::errors, tracking>::control<Rule>;

// ** errors **

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// The range to underline at a syntax error: the word that starts there, or one character. At
/// the end of the file, the position just after the last non-blank character, so the caret
/// lands on a real line.
SourceRange error_range(FileId file, std::string_view text, size_t offset) {
  if (offset >= text.size()) {
    size_t end = text.find_last_not_of(" \t\r\n");
    offset = end == std::string_view::npos ? 0 : end + 1;
    return {file, static_cast<uint32_t>(offset), static_cast<uint32_t>(offset + 1)};
  }
  size_t end = offset + 1;
  if (is_word_char(text[offset])) {
    while (end < text.size() && is_word_char(text[end])) ++end;
  }
  return {file, static_cast<uint32_t>(offset), static_cast<uint32_t>(end)};
}

void report_syntax_error(const pegtl::parse_error& e, const TreeBuilder& builder,
                         std::string_view text, DiagnosticEngine& diags) {
  std::string message(e.message());
  if (message == "maximum parser rule nesting depth exceeded") {
    message = "expression is nested too deeply (more than " + std::to_string(kMaxNestingDepth) +
              " levels)";
  }
  size_t offset = e.positions().empty() ? text.size() : e.positions().front().byte;
  Diagnostic& diag =
      diags.error(DiagLocation::at(error_range(builder.file(), text, offset)), message);
  // Point at the bracket that is still open when a closing one is missing.
  static constexpr std::pair<const char*, char> kClosers[] = {
      {"')'", '('}, {"']'", '['}, {"'}'", '{'}};
  for (const auto& [closer, opener] : kClosers) {
    if (message.find(closer) == std::string::npos) continue;
    if (std::optional<SourceRange> open = builder.open_token(opener)) {
      DiagnosticEngine::add_note(diag, DiagLocation::at(*open),
                                 std::string("to match this '") + opener + "'");
    }
    break;
  }
}

}  // namespace

ast::RuleFile* parse_rules(FileId file, const SourceManager& sources, ast::Context& ctx,
                           DiagnosticEngine& diags) {
  std::string_view text = sources.text(file);
  TreeBuilder builder(ctx, file, text);
  pegtl::memory_input<> in(text.data(), text.size(), sources.name(file));
  try {
    // The grammar ends in must<eof>, so parse() either succeeds or throws.
    if (!pegtl::parse<g::file, action, control>(in, builder)) {
      diags.error(DiagLocation::at(error_range(file, text, 0)), "cannot parse the rules file");
      return nullptr;
    }
  } catch (const pegtl::parse_error& e) {
    report_syntax_error(e, builder, text, diags);
    return nullptr;
  }
  return builder.result();
}

}  // namespace graft::dsl
