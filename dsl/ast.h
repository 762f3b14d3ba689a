// The AST of a .rules file: declarations (import, opclass, rule, phase, test), their blocks,
// statements, conditions and expressions. Every node carries the SourceRange it was parsed
// from, so sema, lowering and --explain can point back at the source. Nodes are created only
// by ast::Context::make<T>() and live in the context's arena; they are trivially destructible
// (strings are arena copies, lists are arena spans) so the arena frees them in bulk.
//
// Sema annotates a few nodes in place (the fields under "filled in by sema"): resolved ops
// and argument bindings of calls, and the declaration each name refers to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/support/location.h"

namespace graft {
struct OpSchema;
}

namespace graft::dsl::ast {

enum class NodeKind : uint8_t {
  // Tokens the parser keeps for the builder and for diagnostics.
  kIdent,
  kToken,
  // Expressions.
  kName,       // x
  kAttrVar,    // $s
  kWildcard,   // _
  kNone,       // none
  kNumber,     // 1, -2.5, 1e-5
  kString,     // "relu"
  kBool,       // true, false
  kList,       // [a, b]
  kSet,        // {1, 2}
  kRange,      // 1..4
  kEllipsis,   // ... (in a shape)
  kTolerance,  // 0.5 ~ 1e-3
  kCall,       // conv2d(x, w, stride=$s), (relu | relu6)(x), ordered add(a, b), op_name(act)
  kBinary,     // a + b, a - b, a * b, a / b, a ?? b
  kUnary,      // -a
  // Parts.
  kArg,
  kCondition,
  kTypeSpec,
  kParam,
  // Statements.
  kAssign,
  kParamDef,
  kReturn,
  // Blocks and clauses.
  kBlock,
  kPattern,
  kReplacement,
  kWhere,
  kBenefit,
  kGraph,
  kApply,
  kExpect,
  // Declarations.
  kImport,
  kOpClass,
  kRule,
  kPhase,
  kTest,
  kFile,
};

/// "call", "rule", … for dumps and internal messages.
const char* node_kind_name(NodeKind kind);

class Context;

struct Node {
  NodeKind kind = NodeKind::kToken;
  SourceRange range;

 protected:
  Node() = default;
};

// Declares the node's kind and makes its constructor private to Context, so nodes can only be
// made by Context::make<T>().
#define GRAFT_AST_NODE(Type, Kind)          \
 public:                                    \
  static constexpr NodeKind kKind = (Kind); \
                                            \
 private:                                   \
  friend class Context;                     \
  Type() = default;                         \
                                            \
 public:

/// A name as written: a rule, op, parameter, keyword-argument or dtype name.
struct Ident : Node {
  GRAFT_AST_NODE(Ident, NodeKind::kIdent)
  std::string_view text;
};

/// Punctuation and flags the builder needs ("{", "(", "+", "==", "not", "positive", doc text).
struct Token : Node {
  GRAFT_AST_NODE(Token, NodeKind::kToken)
  std::string_view text;
};

// ** expressions **

struct Expr : Node {
 protected:
  Expr() = default;
};
bool is_expr(NodeKind kind);

struct NameExpr : Expr {
  GRAFT_AST_NODE(NameExpr, NodeKind::kName)
  std::string_view name;
  // ** filled in by sema ** The Param, AssignStmt or ParamDefStmt that defines the name.
  const Node* decl = nullptr;
};

/// `$name`: an attribute (or scalar operand) variable; `name` is without the '$'.
struct AttrVarExpr : Expr {
  GRAFT_AST_NODE(AttrVarExpr, NodeKind::kAttrVar)
  std::string_view name;
};

struct WildcardExpr : Expr {
  GRAFT_AST_NODE(WildcardExpr, NodeKind::kWildcard)
};

struct NoneExpr : Expr {
  GRAFT_AST_NODE(NoneExpr, NodeKind::kNone)
};

struct NumberExpr : Expr {
  GRAFT_AST_NODE(NumberExpr, NodeKind::kNumber)
  std::string_view spelling;  // as written, with a leading '-' when negated
  bool is_int = false;
  int64_t int_value = 0;
  double float_value = 0;  // also set for integers
};

struct StringExpr : Expr {
  GRAFT_AST_NODE(StringExpr, NodeKind::kString)
  std::string_view value;  // unescaped
};

struct BoolExpr : Expr {
  GRAFT_AST_NODE(BoolExpr, NodeKind::kBool)
  bool value = false;
};

struct ListExpr : Expr {
  GRAFT_AST_NODE(ListExpr, NodeKind::kList)
  std::span<Expr* const> items;
};

/// `e` is a list with a `$` or `_` item (`stride=[$s, $s]`): an attribute matched or built item
/// by item, not a literal.
bool is_list_with_vars(const Expr* e);

struct SetExpr : Expr {
  GRAFT_AST_NODE(SetExpr, NodeKind::kSet)
  std::span<Expr* const> items;
};

/// `lo..hi`, both ends included.
struct RangeExpr : Expr {
  GRAFT_AST_NODE(RangeExpr, NodeKind::kRange)
  NumberExpr* lo = nullptr;
  NumberExpr* hi = nullptr;
};

struct EllipsisExpr : Expr {
  GRAFT_AST_NODE(EllipsisExpr, NodeKind::kEllipsis)
};

/// `value ~ tolerance`: a float that matches within an absolute tolerance.
struct ToleranceExpr : Expr {
  GRAFT_AST_NODE(ToleranceExpr, NodeKind::kTolerance)
  NumberExpr* value = nullptr;
  NumberExpr* tolerance = nullptr;
};

struct Arg;

/// One op (resolved by sema) with the call's arguments bound to its schema.
struct BoundCall {
  const OpSchema* schema = nullptr;
  std::span<const Arg* const> operands;  // per schema operand; nullptr when not given
  std::span<const Arg* const> attrs;     // per schema attribute; nullptr when not given
};

struct CallExpr : Expr {
  GRAFT_AST_NODE(CallExpr, NodeKind::kCall)
  std::span<Ident* const> ops;  // one op, op class or opclass; several for `(a | b)(…)`
  bool ordered = false;         // `ordered add(a, b)`: no commutative matching
  std::span<Arg* const> args;
  SourceRange callee_range;  // the op name(s), for diagnostics
  // ** filled in by sema ** One entry per op the callee stands for.
  std::span<const BoundCall> bound;
  bool is_fold = false;  // the replacement's `fold(expr)`
  bool is_op_name = false;  // `op_name(value)`: a replacement's str attribute (sema_op_name.cpp)
};

enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kCoalesce };
const char* binary_op_spelling(BinaryOp op);

struct BinaryExpr : Expr {
  GRAFT_AST_NODE(BinaryExpr, NodeKind::kBinary)
  BinaryOp op = BinaryOp::kAdd;
  Expr* lhs = nullptr;
  Expr* rhs = nullptr;
  SourceRange op_range;
  // ** filled in by sema ** add/sub/mul/div; nullptr for '??'.
  const OpSchema* schema = nullptr;
};

/// `-operand` (a negated number literal is folded into the NumberExpr instead).
struct UnaryExpr : Expr {
  GRAFT_AST_NODE(UnaryExpr, NodeKind::kUnary)
  Expr* operand = nullptr;
  // ** filled in by sema ** The `neg` op.
  const OpSchema* schema = nullptr;
};

// ** parts **

/// A call argument: positional `x`, keyword `stride=$s` or constraint `groups in {1, 2}`.
struct Arg : Node {
  GRAFT_AST_NODE(Arg, NodeKind::kArg)
  Ident* keyword = nullptr;  // nullptr for a positional argument
  bool is_in = false;        // `keyword in set-or-range`
  Expr* value = nullptr;
};

enum class CmpOp : uint8_t { kNone, kEq, kNe, kLt, kLe, kGt, kGe, kIn };
const char* cmp_op_spelling(CmpOp op);

/// A `where` condition or an `expect` item: `[not] lhs [op rhs]`.
struct Condition : Node {
  GRAFT_AST_NODE(Condition, NodeKind::kCondition)
  bool negated = false;
  Expr* lhs = nullptr;
  CmpOp op = CmpOp::kNone;
  Expr* rhs = nullptr;  // nullptr when op is kNone
  SourceRange op_range;
};

/// `f32[1, 3, N, 8]`: a dtype and dims that are numbers or symbols (NameExpr).
struct TypeSpec : Node {
  GRAFT_AST_NODE(TypeSpec, NodeKind::kTypeSpec)
  Ident* dtype = nullptr;
  std::span<Expr* const> dims;
};

/// A pattern parameter `b?` or a graph input `x: f32[1, 3, 8, 8]`.
struct Param : Node {
  GRAFT_AST_NODE(Param, NodeKind::kParam)
  Ident* name = nullptr;
  bool optional = false;
  TypeSpec* type = nullptr;  // graph inputs only
};

// ** statements **

struct Stmt : Node {
 protected:
  Stmt() = default;
};

struct AssignStmt : Stmt {
  GRAFT_AST_NODE(AssignStmt, NodeKind::kAssign)
  Ident* target = nullptr;
  Expr* value = nullptr;
};

/// `w = param f32[4, 3, 3, 3] [positive] [buffer] [= values]`: a constant tensor of a test
/// graph; an nn.Parameter unless marked `buffer`.
struct ParamDefStmt : Stmt {
  GRAFT_AST_NODE(ParamDefStmt, NodeKind::kParamDef)
  Ident* target = nullptr;
  TypeSpec* type = nullptr;
  bool positive = false;
  SourceRange positive_range;
  bool buffer = false;
  Expr* init = nullptr;  // literal values; nullptr for random values
};

struct ReturnStmt : Stmt {
  GRAFT_AST_NODE(ReturnStmt, NodeKind::kReturn)
  std::span<Expr* const> values;
};

// ** blocks and clauses **

/// `{ stmt… return … }`
struct Block : Node {
  GRAFT_AST_NODE(Block, NodeKind::kBlock)
  std::span<Stmt* const> stmts;  // without the return
  ReturnStmt* ret = nullptr;
};

struct PatternBlock : Node {
  GRAFT_AST_NODE(PatternBlock, NodeKind::kPattern)
  std::span<Param* const> params;
  Block* body = nullptr;
};

struct ReplacementBlock : Node {
  GRAFT_AST_NODE(ReplacementBlock, NodeKind::kReplacement)
  Block* body = nullptr;
};

struct WhereClause : Node {
  GRAFT_AST_NODE(WhereClause, NodeKind::kWhere)
  std::span<Condition* const> conditions;
};

struct BenefitClause : Node {
  GRAFT_AST_NODE(BenefitClause, NodeKind::kBenefit)
  NumberExpr* value = nullptr;
};

/// `graph(inputs) { … }` of a test, or `graph { … }` of an `expect`.
struct GraphBlock : Node {
  GRAFT_AST_NODE(GraphBlock, NodeKind::kGraph)
  bool has_inputs = false;  // written with parentheses
  std::span<Param* const> inputs;
  Block* body = nullptr;
};

struct ApplyClause : Node {
  GRAFT_AST_NODE(ApplyClause, NodeKind::kApply)
  std::span<Ident* const> names;
};

/// `expect item, item`: each item is a Condition or a GraphBlock.
struct ExpectClause : Node {
  GRAFT_AST_NODE(ExpectClause, NodeKind::kExpect)
  std::span<Node* const> items;
};

// ** declarations **

struct Decl : Node {
  std::string_view doc;  // the `///` lines before it, without "///", joined by '\n'
  SourceRange doc_range;

 protected:
  Decl() = default;
};

struct ImportDecl : Decl {
  GRAFT_AST_NODE(ImportDecl, NodeKind::kImport)
  StringExpr* path = nullptr;
};

struct OpClassDecl : Decl {
  GRAFT_AST_NODE(OpClassDecl, NodeKind::kOpClass)
  Ident* name = nullptr;
  std::span<Ident* const> ops;
};

struct RuleDecl : Decl {
  GRAFT_AST_NODE(RuleDecl, NodeKind::kRule)
  Ident* name = nullptr;
  PatternBlock* pattern = nullptr;
  std::span<Node* const> clauses;  // WhereClause and BenefitClause, in source order
  ReplacementBlock* replacement = nullptr;
};

enum class PhaseMode : uint8_t { kOnce, kFixpoint };

struct PhaseDecl : Decl {
  GRAFT_AST_NODE(PhaseDecl, NodeKind::kPhase)
  Ident* name = nullptr;
  PhaseMode mode = PhaseMode::kOnce;
  SourceRange mode_range;
  NumberExpr* max = nullptr;  // fixpoint(max=K); nullptr when not written
  std::span<Ident* const> rules;
};

struct TestDecl : Decl {
  GRAFT_AST_NODE(TestDecl, NodeKind::kTest)
  Ident* name = nullptr;
  GraphBlock* graph = nullptr;
  std::span<Node* const> clauses;  // ApplyClause and ExpectClause, in source order
};

struct RuleFile : Node {
  GRAFT_AST_NODE(RuleFile, NodeKind::kFile)
  std::span<Decl* const> decls;
};

#undef GRAFT_AST_NODE

template <typename T>
T* dyn_cast(Node* node) {
  return node != nullptr && node->kind == T::kKind ? static_cast<T*>(node) : nullptr;
}
template <typename T>
const T* dyn_cast(const Node* node) {
  return node != nullptr && node->kind == T::kKind ? static_cast<const T*>(node) : nullptr;
}

/// Owns every node of one or more parsed files: a bump arena with stable addresses.
class Context {
 public:
  Context() = default;
  // Nodes point into the arena; moving the context object itself would be fine, but the
  // RuleFileSet keeps it behind a unique_ptr so the address never matters. Copying is wrong.
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// A new node of type T covering `range`; the caller fills in the fields.
  template <typename T>
  T* make(SourceRange range) {
    static_assert(std::is_trivially_destructible_v<T>, "AST nodes are freed without destructors");
    T* node = new (allocate(sizeof(T), alignof(T))) T();
    node->kind = T::kKind;
    node->range = range;
    return node;
  }

  /// Copies `items` into the arena.
  template <typename T>
  std::span<T const> copy(const std::vector<T>& items) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (items.empty()) return {};
    T* data = static_cast<T*>(allocate(sizeof(T) * items.size(), alignof(T)));
    for (size_t i = 0; i < items.size(); ++i) new (data + i) T(items[i]);
    return {data, items.size()};
  }

  /// Copies `text` into the arena.
  std::string_view save(std::string_view text);

  size_t bytes_allocated() const { return bytes_; }

 private:
  void* allocate(size_t size, size_t align);

  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* cursor_ = nullptr;
  size_t remaining_ = 0;
  size_t bytes_ = 0;
};

}  // namespace graft::dsl::ast
