// The AST arena and the names of node kinds and operators.
#include "dsl/ast.h"

#include <algorithm>
#include <cstring>

namespace graft::dsl::ast {
namespace {

// Large enough that a typical rules file fits in one or two blocks.
constexpr size_t kBlockSize = 64 * 1024;

}  // namespace

const char* node_kind_name(NodeKind kind) {
  switch (kind) {
    case NodeKind::kIdent:
      return "ident";
    case NodeKind::kToken:
      return "token";
    case NodeKind::kName:
      return "name";
    case NodeKind::kAttrVar:
      return "attribute variable";
    case NodeKind::kWildcard:
      return "wildcard";
    case NodeKind::kNone:
      return "none";
    case NodeKind::kNumber:
      return "number";
    case NodeKind::kString:
      return "string";
    case NodeKind::kBool:
      return "bool";
    case NodeKind::kList:
      return "list";
    case NodeKind::kSet:
      return "set";
    case NodeKind::kRange:
      return "range";
    case NodeKind::kEllipsis:
      return "ellipsis";
    case NodeKind::kTolerance:
      return "tolerance";
    case NodeKind::kCall:
      return "call";
    case NodeKind::kBinary:
      return "binary";
    case NodeKind::kUnary:
      return "unary";
    case NodeKind::kArg:
      return "argument";
    case NodeKind::kCondition:
      return "condition";
    case NodeKind::kTypeSpec:
      return "type";
    case NodeKind::kParam:
      return "parameter";
    case NodeKind::kAssign:
      return "assignment";
    case NodeKind::kParamDef:
      return "param";
    case NodeKind::kReturn:
      return "return";
    case NodeKind::kBlock:
      return "block";
    case NodeKind::kPattern:
      return "pattern";
    case NodeKind::kReplacement:
      return "replacement";
    case NodeKind::kWhere:
      return "where";
    case NodeKind::kBenefit:
      return "benefit";
    case NodeKind::kGraph:
      return "graph";
    case NodeKind::kApply:
      return "apply";
    case NodeKind::kExpect:
      return "expect";
    case NodeKind::kImport:
      return "import";
    case NodeKind::kOpClass:
      return "opclass";
    case NodeKind::kRule:
      return "rule";
    case NodeKind::kPhase:
      return "phase";
    case NodeKind::kTest:
      return "test";
    case NodeKind::kFile:
      return "file";
  }
  return "node";
}

bool is_expr(NodeKind kind) { return kind >= NodeKind::kName && kind <= NodeKind::kUnary; }

bool is_list_with_vars(const Expr* e) {
  const auto* list = dyn_cast<ListExpr>(e);
  return list != nullptr && std::any_of(list->items.begin(), list->items.end(), [](const Expr* i) {
           return i->kind == NodeKind::kAttrVar || i->kind == NodeKind::kWildcard;
         });
}

const char* binary_op_spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kCoalesce:
      return "??";
  }
  return "?";
}

const char* cmp_op_spelling(CmpOp op) {
  switch (op) {
    case CmpOp::kNone:
      return "";
    case CmpOp::kEq:
      return "==";
    case CmpOp::kNe:
      return "!=";
    case CmpOp::kLt:
      return "<";
    case CmpOp::kLe:
      return "<=";
    case CmpOp::kGt:
      return ">";
    case CmpOp::kGe:
      return ">=";
    case CmpOp::kIn:
      return "in";
  }
  return "?";
}

std::string_view Context::save(std::string_view text) {
  if (text.empty()) return {};
  char* data = static_cast<char*>(allocate(text.size(), 1));
  std::memcpy(data, text.data(), text.size());
  return {data, text.size()};
}

void* Context::allocate(size_t size, size_t align) {
  size_t padding = (align - reinterpret_cast<uintptr_t>(cursor_) % align) % align;
  if (cursor_ == nullptr || padding + size > remaining_) {
    // Oversized requests get a block of their own; the current block stays usable.
    size_t block = size + align > kBlockSize ? size + align : kBlockSize;
    blocks_.push_back(std::make_unique<std::byte[]>(block));
    std::byte* start = blocks_.back().get();
    if (block != kBlockSize) {
      bytes_ += size;
      size_t pad = (align - reinterpret_cast<uintptr_t>(start) % align) % align;
      return start + pad;
    }
    cursor_ = start;
    remaining_ = block;
    padding = (align - reinterpret_cast<uintptr_t>(cursor_) % align) % align;
  }
  std::byte* result = cursor_ + padding;
  cursor_ += padding + size;
  remaining_ -= padding + size;
  bytes_ += size;
  return result;
}

}  // namespace graft::dsl::ast
