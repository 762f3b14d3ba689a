// TreeBuilder: the state of the parser's actions. It keeps a stack of finished nodes; each
// grammar rule with an action pops the nodes its sub-rules pushed and pushes one node.
//
// PEG parsers backtrack, and PEGTL runs the actions of a sub-rule even when an enclosing
// alternative later fails. The parser's control therefore brackets every rule with mark() at
// its start, and unmark() on success or rewind() on failure: rewinding drops whatever a failed
// alternative pushed. This is the mechanism of PEGTL's parse_tree, applied to typed nodes.
// The builder is independent of PEGTL (parser.cpp owns the grammar glue).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dsl/ast.h"

namespace graft::dsl {

class TreeBuilder {
 public:
  TreeBuilder(ast::Context& ctx, FileId file, std::string_view text)
      : ctx_(ctx), file_(file), text_(text) {}

  // ** stack discipline, driven by the parser's control **
  void mark() { marks_.push_back(stack_.size()); }
  void unmark() { marks_.pop_back(); }
  void rewind() {
    stack_.resize(marks_.back());
    marks_.pop_back();
  }

  /// The range of [begin, end) in the source text.
  SourceRange range(const char* begin, const char* end) const;
  FileId file() const { return file_; }
  /// The innermost opener `c` ('(', '[' or '{') still on the stack, i.e. not yet closed.
  std::optional<SourceRange> open_token(char c) const;
  /// The parsed file, once the `file` rule has succeeded.
  ast::RuleFile* result() const;

  // ** builders ** Each consumes the nodes pushed since its rule started and pushes one node.
  // Those returning a string return an error message instead when the text is rejected.
  void ident(SourceRange r);
  void token(SourceRange r);
  void doc_line(SourceRange r);
  [[nodiscard]] std::optional<std::string> number(SourceRange r);
  void signed_number(SourceRange r);
  void string_literal(SourceRange r);
  void bool_literal(SourceRange r, bool value);
  void none_literal(SourceRange r);
  void wildcard(SourceRange r);
  void ellipsis(SourceRange r);
  void attr_var(SourceRange r);
  void name(SourceRange r);
  void literal_number(SourceRange r);
  void arg(SourceRange r, bool is_in);
  void call(SourceRange r);
  void ordered_call(SourceRange r);
  void paren(SourceRange r);
  void list(SourceRange r);
  void set(SourceRange r);
  void range_literal(SourceRange r);
  void negate(SourceRange r);
  void binary_left(SourceRange r);
  void binary_right(SourceRange r);
  void condition(SourceRange r);
  void type_spec(SourceRange r);
  void param_def(SourceRange r);
  void assign(SourceRange r);
  void return_stmt(SourceRange r);
  void block(SourceRange r);
  void param(SourceRange r);
  void pattern(SourceRange r);
  void replacement(SourceRange r);
  void where(SourceRange r);
  void benefit(SourceRange r);
  void rule(SourceRange r);
  void import(SourceRange r);
  void opclass(SourceRange r);
  void phase(SourceRange r);
  void graph(SourceRange r);
  void apply(SourceRange r);
  void expect(SourceRange r);
  void test(SourceRange r);
  void documented(SourceRange r);
  void file(SourceRange r);

 private:
  std::vector<ast::Node*> take();
  std::string_view text(SourceRange r) const { return text_.substr(r.begin, r.end - r.begin); }
  void push(ast::Node* node) { stack_.push_back(node); }

  ast::Context& ctx_;
  FileId file_;
  std::string_view text_;
  std::vector<ast::Node*> stack_;
  std::vector<size_t> marks_;
};

}  // namespace graft::dsl
